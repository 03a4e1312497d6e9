import Foundation

// A request as one record of contract JSON bytes and back: what the service's journal keeps of
// an added request. Written member by member (``JSONWriter/request(_:)``) and read by the
// record decoder for the common shapes, so neither builds a JSON tree or goes through
// `Codable` (which took about 40 us a request each way).

extension NotificationRequest {
    /// The request's contract JSON, as one line without its newline: the same bytes as
    /// writing ``json`` (sorted keys, times to the millisecond).
    package var contractRecord: [UInt8] {
        var w = JSONWriter()
        w.request(self)
        return w.bytes
    }

    /// Reads one request record (a JSON object in the contract's request format, as
    /// ``contractRecord`` writes it): the record decoder for the common shapes, else the
    /// general path, which gives the same request. Only its shape is checked, as the record
    /// decoder checks it: the values were judged when the request was accepted, and the
    /// caller validates it in its context when it adds it (a center's `add` does).
    ///
    /// - Throws: ``RequestError`` for bytes that are not such a record.
    package init(contractRecord bytes: UnsafeBufferPointer<UInt8>) throws(RequestError) {
        if let r = RequestRecordDecoder.decode(bytes) {
            self = r
            return
        }
        let json: JSONValue
        do throws(JSONSyntaxError) {
            json = try JSONValue.parse(bytes)
        } catch {
            throw RequestError(.invalidRequest, "a request record that is not JSON: \(error)")
        }
        // Read for its shape only, as the fast decoder reads it: a stored record was judged
        // when it was accepted, and judging it again refused, after an upgrade, a polygon the
        // rules now refuse (a restore of the whole tenant failed on it).
        var warnings: [String] = []
        try self.init(decoding: json, warnings: &warnings)
    }
}
