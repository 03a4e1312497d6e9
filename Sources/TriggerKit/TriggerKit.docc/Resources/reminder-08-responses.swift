import TriggerKit

/// What the service does when a device reports that its user chose an action.
func handle(_ response: NotificationResponse, in center: TriggerCenter) async {
    let outcome = await center.respond(response)
    print("\(response.requestIdentifier): \"\(response.actionIdentifier)\" applied: \(outcome.applied)")
    for warning in outcome.warnings {
        print("warning:", warning)
    }
}
