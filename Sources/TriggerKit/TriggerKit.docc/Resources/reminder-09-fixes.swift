import TriggerKit

/// What the service does when a device reports where it is. A fix that crosses a region's
/// edge fires, and its delivery reaches the sender through the feed like any other.
func handle(_ fix: LocationFix, in center: TriggerCenter) async {
    do {
        try await center.receive(fix)
    } catch {
        print("fix from \(fix.device) refused: \(error)")  // a bad position, or a date ahead of the clock
    }
}
