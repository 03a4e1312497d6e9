import Foundation
import TriggerKit

@main
struct ReminderService {
    static func main() async throws {
        print("The reminder service starts.")
    }
}
