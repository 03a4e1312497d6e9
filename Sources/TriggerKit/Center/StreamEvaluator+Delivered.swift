import Foundation

@_spi(Engine) extension StreamEvaluator {
    /// The public value of a fire.
    func delivered(value e: FiredEvent) -> DeliveredNotification {
        let r = Int(e.request)
        if sharedRequests.count < requests.count {
            sharedRequests += Array(repeating: nil, count: requests.count - sharedRequests.count)
        }
        let shared: SharedRequest
        if let s = sharedRequests[r] { shared = s } else {
            shared = SharedRequest(requests[r])
            sharedRequests[r] = shared
        }
        return DeliveredNotification(shared: shared, date: Timestamp.date(millis: e.date), trigger: e.kind,
                                     crossing: e.crossing, device: deviceName(of: e), region: regionIdentifier(of: e),
                                     presentation: e.presentation, fireCount: e.count, id: .bits(eventIdBits(of: e)))
    }
}
