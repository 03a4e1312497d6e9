@_spi(Engine) extension StreamLineParser {
    /// A control line's change, or nil for other lines.
    static func controlLine(_ o: [String: JSONValue], t: Int64) throws(StreamLineError) -> ControlLine? {
        if let a = o["add"] {
            var warnings: [String] = []
            do throws(RequestError) {
                let r = try NotificationRequest(decoding: a, warnings: &warnings)
                return .add(r, warnings: warnings)
            } catch {
                // A request (an object) is refused as a request, by its identifier (`-` without
                // one), whether the reader or the validator refuses it: the reader's refusals
                // were error lines, counted and stopping `--strict`, where the validator's were
                // not (a helper's find).
                if case .object(let fields) = a {
                    let identifier = if case .string(let s)? = fields["identifier"] { s } else { "" }
                    return .refusedAdd(identifier: identifier, error)
                }
                throw StreamLineError("\"add\": \(error.code.rawValue): \(error.message)")
            }
        }
        if let r = o["remove"] {
            guard case .array(let items) = r else { throw StreamLineError("\"remove\" must be an array of identifiers") }
            var ids: [String] = []
            for i in items {
                guard case .string(let s) = i else { throw StreamLineError("\"remove\" must be an array of identifiers") }
                ids.append(s)
            }
            return .remove(ids)
        }
        if let r = o["respond"] {
            do throws(SettingsError) {
                return .respond(try NotificationResponse(json: r))
            } catch {
                throw StreamLineError("\"respond\": \(error.reason)")
            }
        }
        if let c = o["categories"] {
            do throws(SettingsError) {
                return .categories(try NotificationCategory.list(json: c))
            } catch {
                throw StreamLineError("\"categories\": \(error.reason)")
            }
        }
        return nil
    }
}
