import Foundation
import Testing
@_spi(Engine) @testable import TriggerKit

/// The categories reader (`--categories`, `categories` stream lines, `PUT /v1/categories`): what
/// it accepts, and that every mistake is refused with a reason naming where it is.
@Suite("Categories: one reader, strict")
struct CategoriesFileTests {
    private func read(_ text: String) throws(SettingsError) -> [NotificationCategory] {
        let json: JSONValue
        do { json = try JSONValue.parse(document: Data(text.utf8)) } catch { throw SettingsError("test input is not JSON: \(error)") }
        return try NotificationCategory.list(json: json)
    }

    private func reason(_ text: String) -> String? {
        do {
            _ = try read(text)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test func theDocumentedExampleReadsBackFromItsJSON() throws {
        let list = try read("""
            [{"identifier": "REMINDER",
              "actions": [{"identifier": "cancel", "title": "Stop reminding me", "options": ["destructive"], "effect": "removeRequest"},
                          {"identifier": "snooze", "title": "In 5 minutes", "effect": {"snooze": 300}}],
              "dismissEffect": "none"},
             {"identifier": "PLAIN", "actions": null, "dismissEffect": null}]
            """)
        #expect(list.map(\.identifier) == ["REMINDER", "PLAIN"])
        #expect(list[0].actions.map(\.identifier) == ["cancel", "snooze"])
        #expect(list[0].actions[0].effect == .removeRequest)
        #expect(list[0].actions[1].effect == .snooze(300))
        #expect(list[0].actions[1].options == [])
        #expect(list[1].actions.isEmpty)
        // What the server answers (`json`) is read back to the same categories.
        #expect(try NotificationCategory.list(json: .array(list.map(\.json))) == list)
    }

    @Test(arguments: [
        (#"[{"identifier": "R", "dismisEffect": "removeRequest"}]"#,
         #"category "R": unknown field "dismisEffect" (expected identifier, actions, dismissEffect)"#),
        (#"[{"identifier": "R", "actions": [{"identifier": "a", "efect": "removeRequest"}]}]"#,
         #"category "R": action "a": unknown field "efect" (expected identifier, title, options, effect)"#),
        (#"[{"identifier": "R", "actions": {"identifier": "a"}}]"#,
         #"category "R": "actions" must be an array"#),
        (#"[{"identifier": "R", "actions": [{"identifier": "a", "title": 5}]}]"#,
         #"category "R": action "a": "title" must be a string"#),
        (#"[{"identifier": "R", "actions": [{"identifier": "a", "options": "destructive"}]}]"#,
         #"category "R": action "a": "options" must be an array"#),
        (#"[{"identifier": "R"}, {"identifier": "R"}]"#,
         #"category "R" is listed twice"#),
        (#"[{"identifier": "R", "actions": [{"identifier": "a"}, {"identifier": "a", "effect": "removeRequest"}]}]"#,
         #"category "R": action "a" is listed twice"#),
        (#"[{"identifier": ""}]"#,
         #"a category needs a non-empty "identifier""#),
        (#"{"identifier": "R"}"#,
         "categories must be a JSON array"),
        // The value rules are `validate`'s alone: before, the reader had its own copies, in
        // words that named neither the category nor the action.
        (#"[{"identifier": "R", "actions": [{"identifier": "a", "effect": {"snooze": 0}}]}]"#,
         #"category "R": action "a": "effect": "snooze" must be a number of seconds in (0, 100 years], not 0"#),
        (#"[{"identifier": "R", "dismissEffect": {"snooze": "soon"}}]"#,
         #"category "R": "dismissEffect": "snooze" must be a number of seconds in (0, 100 years], not a string"#),
        // A misspelt or extra member is named (a helper: both read as a bad "snooze").
        (#"[{"identifier": "R", "dismissEffect": {"snooze": 60, "repeat": true}}]"#,
         #"category "R": "dismissEffect": unknown member "repeat": an effect object is {"snooze": seconds}"#),
        (#"[{"identifier": "R", "actions": [{"identifier": "a", "effect": {"Snooze": 5}}]}]"#,
         #"category "R": action "a": "effect": unknown member "Snooze": an effect object is {"snooze": seconds}"#),
        (#"[{"identifier": "R", "dismissEffect": {}}]"#,
         #"category "R": "dismissEffect": "snooze" must be a number of seconds in (0, 100 years]"#),
        (#"[{"identifier": "R", "actions": [{"identifier": "a", "options": ["loud"]}]}]"#,
         #"category "R": action "a": unknown option "loud" (foreground, destructive, authenticationRequired)"#),
        (#"[{"identifier": "R", "actions": [{"identifier": ""}]}]"#,
         #"an action of category "R" needs a non-empty "identifier""#),
    ])
    func mistakesAreRefusedByName(input: String, expected: String) {
        #expect(reason(input) == expected)
    }

    /// A list given to the library is refused in the file's words: one set of rules.
    @Test func theLibraryRefusesInTheFilesWords() {
        let list = [NotificationCategory(identifier: "R", actions: [NotificationAction(identifier: "a", title: "A", effect: .snooze(0))])]
        let error = #expect(throws: SettingsError.self) { try NotificationCategory.validate(list) }
        #expect(error?.reason == reason(#"[{"identifier": "R", "actions": [{"identifier": "a", "effect": {"snooze": 0}}]}]"#))
    }

    /// The same reasons reach a `categories` stream line (one reader for every way in).
    @Test func aStreamLineGivesTheSameReason() {
        let line = #"{"t": "2026-11-21T09:00:00Z", "categories": [{"identifier": "R", "dismisEffect": "none"}]}"#
        #expect(throws: StreamLineError.self) { try StreamLineParser.parse(line) }
        do {
            _ = try StreamLineParser.parse(line)
        } catch {
            #expect(error.reason == #""categories": category "R": unknown field "dismisEffect" (expected identifier, actions, dismissEffect)"#)
        }
    }
}
