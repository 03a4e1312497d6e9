import Foundation
import Testing
@_spi(Engine) import TriggerKit

/// Issue 14: what the README shows is what the tool prints, and `make run` prints the
/// checked-in demo output. Commands run from the repository's root with the debug binary in
/// place of `.build/release/triggerkit` (same output); stdout and stderr are taken together,
/// as a terminal shows them.
@Suite("docs: README examples and the make run demo")
struct DocumentationExamplesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Runs a shell command line from the root; returns its combined output.
    static func shell(_ command: String) throws -> (output: String, status: Int32) {
        let binary = try #require(KillNineTests.binary, "the triggerkit binary is built by `swift test`")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "(" + command.replacingOccurrences(of: ".build/release/triggerkit", with: binary) + ") 2>&1"]
        p.currentDirectoryURL = root
        let out = Pipe()
        p.standardOutput = out
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (String(decoding: data, as: UTF8.self), p.terminationStatus)
    }

    /// The README's `console` blocks: a `$ command` line, then what it prints.
    static func readmeExamples() throws -> [(command: String, expected: String)] {
        let text = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        var examples: [(String, String)] = []
        var block: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line == "```console" { block = []; continue }
            if line == "```", let b = block {
                if let first = b.first, first.hasPrefix("$ ") {
                    examples.append((String(first.dropFirst(2)), b.dropFirst().joined(separator: "\n")))
                }
                block = nil
                continue
            }
            block?.append(line)
        }
        return examples
    }

    @Test func theReadmeHasExamplesToRun() throws {
        #expect(try Self.readmeExamples().count >= 5)
    }

    @Test(arguments: try DocumentationExamplesTests.readmeExamples().map(\.command))
    func everyReadmeExamplePrintsWhatTheReadmeShows(command: String) throws {
        let expected = try #require(try Self.readmeExamples().first { $0.command == command }).expected
        let r = try Self.shell(command)
        #expect(r.output.trimmingCharacters(in: .newlines) == expected, "\(command)")
    }

    @Test func theReadmesRequestExamplesPasteAsAnNDJSONFile() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(text.range(of: "```json\n{\"identifier\": \"staff-meeting\""))
        let end = try #require(text.range(of: "```", range: start.upperBound..<text.endIndex))
        let block = String(text[text.index(start.lowerBound, offsetBy: 8)..<end.lowerBound])
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString).ndjson")
        try block.write(to: file, atomically: true, encoding: .utf8)
        let r = try Self.shell(".build/release/triggerkit check --requests \(file.path) --now 2026-11-23T11:00:00Z")
        #expect(r.status == 0)
        #expect(r.output == "5 requests: 5 ok, 0 errors, 0 warnings\n")
    }

    /// The commands of the Makefile's `run` target (after its build), as make runs them.
    static func makeRunCommands() throws -> [String] {
        let makefile = try String(contentsOf: root.appendingPathComponent("Makefile"), encoding: .utf8)
        let lines = makefile.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex { $0.hasPrefix("run:") })
        return lines[(start + 1)...].prefix { $0.hasPrefix("\t") }.map { line in
            var command = String(line.dropFirst())
            if command.hasPrefix("@") { command.removeFirst() }
            return command.replacingOccurrences(of: "$(BIN)", with: ".build/release/triggerkit")
        }
    }

    /// Every request shown in a `json` block of the docs passes `check` (geofences.md showed a
    /// window that opened with `enterAtOpening` on a region without `notifyOnEntry`, which the
    /// validator refuses).
    @Test(arguments: ["docs/geofences.md", "README.md"])
    func theDocsRequestExamplesPassCheck(file: String) throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
        var requests: [String] = []
        var block: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line == "```json" { block = []; continue }
            if line.hasPrefix("```"), let b = block {
                // A block of one request (possibly over several lines), or of one per line.
                // (A request: an identifier and a trigger object; events name their trigger.)
                func isRequest(_ t: String) -> Bool { (try? JSONValue.parse(t))?.objectValue?["trigger"]?.objectValue != nil }
                let joined = b.joined(separator: " ")
                if isRequest(joined) {
                    requests.append(joined)
                } else {
                    requests += b.filter(isRequest)
                }
                block = nil
                continue
            }
            block?.append(line)
        }
        // (These files show requests: a parser that found none would check nothing.)
        #expect(!requests.isEmpty, "\(file): no request found")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("doc-requests-\(UUID().uuidString).ndjson")
        defer { try? FileManager.default.removeItem(at: path) }
        try requests.joined(separator: "\n").write(to: path, atomically: true, encoding: .utf8)
        let r = try Self.shell(".build/release/triggerkit check --requests \(path.path) --now 2026-11-23T08:00:00Z")
        #expect(r.status == 0, "\(file): \(r.output)")
    }

    @Test func makeRunPrintsTheCheckedInDemoOutput() throws {
        let commands = try Self.makeRunCommands()
        #expect(commands.count >= 3)
        var output = ""
        for c in commands {
            let r = try Self.shell(c)
            #expect(r.status == 0, "\(c)")
            output += r.output
        }
        let expected = try String(contentsOf: Self.root.appendingPathComponent("Fixtures/demo/make-run.expected"), encoding: .utf8)
        #expect(output == expected)
    }
}
