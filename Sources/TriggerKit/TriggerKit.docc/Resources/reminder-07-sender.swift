import Foundation
import TriggerKit

/// Starts the sender: a task that takes every delivery of the center, in order, and pushes
/// it to its device, for as long as the center runs. This is where a real service calls
/// APNs or FCM; here `push` feeds a stream that stands in for the push service and the phone.
func startSender(for center: TriggerCenter,
                 push: AsyncStream<DeliveredNotification>.Continuation) async -> Task<Void, Never> {
    let feed = await center.deliveries()
    return Task {
        for await delivery in feed {
            print("\(delivery.date.ISO8601Format())  push to \(delivery.device ?? "everyone"):",
                  delivery.request.content.title ?? "", "[\(delivery.eventId)]")
            push.yield(delivery)
        }
        push.finish()  // the center shut down, and its feed finished
    }
}
