import Foundation
import HTTPTypes
import Synchronization
import HummingbirdTesting
import Testing
@_spi(Engine) import TriggerKit
@testable import TriggerKitServer

/// `GET /v1/requests` by pages (`limit`, `after`), and the query parameters every route
/// checks: a value that is not what the route takes is a 400 naming it, never the default.
@Suite("serve: listing by pages, query parameters")
struct ServeListingTests {
    static func ids(_ a: Answer) -> [String]? {
        a.json?.objectValue?["requests"]?.arrayValue?.compactMap { $0.objectValue?["identifier"]?.stringValue }
    }

    static func next(_ a: Answer) -> String?? {
        guard let v = a.json?.objectValue?["next"] else { return nil }
        return .some(v.stringValue)
    }

    /// Pages of 10 over 25 requests: 10, 10, 5, the last saying no more; together the whole
    /// list. Between pages, a request not yet listed is removed (never listed), one is added
    /// (listed at the end) and one already listed is replaced (listed again at the end).
    @Test func pagesWalkTheListWhileItChanges() async throws {
        let serve = Serve()
        defer { serve.remove() }
        try await serve.run { c, _ in
            let added = (0..<25).map { "r\($0)" }
            let body = "[" + added.map { Sample.every($0, 60) }.joined(separator: ",") + "]"
            #expect(try await c.call(.post, "/v1/requests", body: body).status == 200)
            // Unchanged, page by page: the same as the whole list.
            var listed: [String] = []
            var pages: [Int] = []
            var uri = "/v1/requests?limit=10"
            while true {
                let a = try await c.call(.get, uri)
                #expect(a.status == 200)
                let page = try #require(Self.ids(a))
                pages.append(page.count)
                listed += page
                guard case .some(.some(let cursor)) = Self.next(a) else {
                    #expect(Self.next(a) == .some(nil), "the last page has \"next\": null")
                    break
                }
                uri = "/v1/requests?limit=10&after=\(cursor)"
            }
            #expect(pages == [10, 10, 5])
            #expect(listed == added)
            // The whole list (no limit, no cursor) has no "next": its bytes are as before.
            let whole = try await c.call(.get, "/v1/requests")
            #expect(Self.ids(whole) == added)
            #expect(Self.next(whole) == nil)

            // Changing between pages.
            let first = try await c.call(.get, "/v1/requests?limit=10")
            #expect(Self.ids(first) == Array(added[0..<10]))
            let cursor = try #require(Self.next(first) ?? nil)
            #expect(try await c.call(.delete, "/v1/requests/r15").status == 204)
            #expect(try await c.call(.post, "/v1/requests", body: Sample.every("late", 60)).status == 201)
            #expect(try await c.call(.post, "/v1/requests", body: Sample.every("r2", 120)).status == 200)
            var rest: [String] = []
            var after = cursor
            while true {
                let a = try await c.call(.get, "/v1/requests?limit=7&after=\(after)")
                #expect(a.status == 200)
                rest += Self.ids(a) ?? []
                guard case .some(.some(let n)) = Self.next(a) else { break }
                after = n
            }
            #expect(rest == added[10..<25].filter { $0 != "r15" } + ["late", "r2"])
            // A device's pages: only what it sees.
            #expect(try await c.call(.post, "/v1/requests", body: Sample.circle("mine", device: "d1")).status == 201)
            #expect(try await c.call(.post, "/v1/requests", body: Sample.circle("theirs", device: "d2")).status == 201)
            let d1Whole = try #require(Self.ids(try await c.call(.get, "/v1/requests?device=d1")))
            #expect(d1Whole.last == "mine" && !d1Whole.contains("theirs"))
            var d1: [String] = []
            var d1Uri = "/v1/requests?device=d1&limit=3"
            while true {
                let a = try await c.call(.get, d1Uri)
                d1 += Self.ids(a) ?? []
                guard case .some(.some(let n)) = Self.next(a) else { break }
                d1Uri = "/v1/requests?device=d1&limit=3&after=\(n)"
            }
            #expect(d1 == d1Whole)
        }
    }

    /// A cursor made before a restart, or one that is not a cursor at all, is refused: 410
    /// `cursorExpired` (list again), 400 `invalidRequest`.
    @Test func aCursorFromAnotherRunOrNotACursorIsRefused() async throws {
        let serve = Serve()
        defer { serve.remove() }
        let saved = Mutex("")
        try await serve.run { c, _ in
            let body = "[" + (0..<5).map { Sample.every("r\($0)", 60) }.joined(separator: ",") + "]"
            #expect(try await c.call(.post, "/v1/requests", body: body).status == 200)
            let a = try await c.call(.get, "/v1/requests?limit=2")
            let cursor = try #require(Self.next(a) ?? nil)
            saved.withLock { $0 = cursor }
            #expect(try await c.call(.get, "/v1/requests?after=\(cursor)").status == 200)
            // The run tag uppercased is another tag only when it has a letter: a tag of digits
            // alone (about 1 run in 43) made that "bad" cursor a valid one (CI failed on it).
            let tag = cursor.prefix(8)
            let upper = tag.uppercased() != tag ? ["\(tag.uppercased())-1"] : []
            for bad in ["x", "123", "zzzzzzzz-1", "\(tag)--1", "\(tag)-1.5", "\(tag)", "\(tag)-+1"] + upper
                        + ["\(tag)-99999999999999999999999"] {
                let r = try await c.call(.get, "/v1/requests?after=\(bad)")
                #expect(r.status == 400, "after=\(bad)")
                #expect(r.errorCode == "invalidRequest", "after=\(bad)")
                #expect(r.body.contains("after"), "after=\(bad): \(r.body)")
            }
            #expect(try await c.call(.get, "/v1/requests?after=\(cursor)&after=\(cursor)").status == 400)
        }
        // The same data, a new run of the server.
        let cursor = saved.withLock { $0 }
        try await serve.run { c, _ in
            #expect(Self.ids(try await c.call(.get, "/v1/requests"))?.count == 5)
            let r = try await c.call(.get, "/v1/requests?limit=2&after=\(cursor)")
            #expect(r.status == 410)
            #expect(r.errorCode == "cursorExpired")
        }
    }

    /// A route that does not exist answers a JSON error like every other (it was an empty
    /// 404 body).
    @Test func anUnknownRouteIsAJSONError() async throws {
        let serve = Serve()
        defer { serve.remove() }
        try await serve.run { c, _ in
            for (uri, token) in [("/v1/nothing", Serve.tokenA), ("/nothing", nil), ("/v1/requests/x/y/z", Serve.tokenA)] as [(String, String?)] {
                let a = try await c.call(.get, uri, token: token)
                #expect(a.status == 404, "\(uri)")
                #expect(a.errorCode == "notFound", "\(uri): \(a.body)")
                #expect(a.json?.objectValue?["error"]?.objectValue?["message"]?.stringValue?.contains(uri) == true, "\(uri): \(a.body)")
            }
            // Routes that exist still answer as before.
            #expect(try await c.call(.get, "/v1/requests/none").errorCode == "notFound")
            #expect(try await c.call(.get, "/healthz", token: nil).status == 200)
        }
    }

    /// The largest event number a client can send (Int64.max) crashed the whole server: the
    /// first event it would get is one past it. Numbers up to one below are taken; it is a 400.
    @Test func theLargestEventNumberIsRefusedNotOverflowed() async throws {
        let serve = Serve()
        defer { serve.remove() }
        try await serve.run { c, _ in
            let top = Int64.max
            for (uri, header) in [("/v1/events?follow=false", "\(top)"), ("/v1/events?follow=false&after=\(top)", nil)] as [(String, String?)] {
                let a = try await c.call(.get, uri, headers: header.map { [("Last-Event-ID", $0)] } ?? [])
                #expect(a.status == 400, "\(uri) \(header ?? "")")
                #expect(a.errorCode == "invalidRequest", "\(uri): \(a.body)")
            }
            let below = try await c.call(.get, "/v1/events?follow=false", headers: [("Last-Event-ID", "\(top - 1)")])
            #expect(below.status == 200)
            #expect(try await c.call(.get, "/healthz", token: nil).status == 200)
        }
    }

    /// Integer and word parameters out of their range, not integers, or given twice: 400
    /// naming the parameter (before, `limit=abc` was read as the default).
    @Test func queryParametersAreCheckedNotDefaulted() async throws {
        let serve = Serve()
        defer { serve.remove() }
        try await serve.run { c, _ in
            #expect(try await c.call(.post, "/v1/requests", body: Sample.every("tick", 60)).status == 201)
            let refused = [
                ("/v1/requests?limit=0", "limit"), ("/v1/requests?limit=10001", "limit"), ("/v1/requests?limit=abc", "limit"),
                ("/v1/requests?limit=1&limit=2", "limit"), ("/v1/requests?limit=", "limit"),
                ("/v1/upcoming?limit=abc", "limit"), ("/v1/upcoming?limit=2.5", "limit"), ("/v1/upcoming?limit=-1", "limit"),
                ("/v1/upcoming?limit=10001", "limit"),
                ("/v1/events?limit=0", "limit"), ("/v1/events?limit=x&follow=false", "limit"),
                ("/v1/events?follow=no", "follow"), ("/v1/events?from=then", "from"),
            ]
            for (uri, name) in refused {
                let a = try await c.call(.get, uri)
                #expect(a.status == 400, "\(uri)")
                #expect(a.errorCode == "invalidRequest", "\(uri)")
                #expect(a.json?.objectValue?["error"]?.objectValue?["message"]?.stringValue?.hasPrefix(name) == true, "\(uri): \(a.body)")
            }
            // Given twice: device on every route that takes it, after on the event stream.
            for uri in ["/v1/requests?device=a&device=b", "/v1/upcoming?device=a&device=b", "/v1/delivered?device=a&device=b",
                        "/v1/events?follow=false&device=a&device=b", "/v1/events?follow=false&after=1&after=2",
                        "/v1/events?follow=false&after=x", "/v1/events?follow=false&after=1&from=then"] {
                let a = try await c.call(.get, uri)
                #expect(a.status == 400, "\(uri)")
                #expect(a.errorCode == "invalidRequest", "\(uri): \(a.body)")
            }
            #expect(try await c.call(.get, "/v1/events?follow=false&after=x").body.contains("after must be"))
            // In range, they answer.
            #expect(try await c.call(.get, "/v1/upcoming?limit=10000").status == 200)
            #expect(try await c.call(.get, "/v1/requests?limit=10000").status == 200)
            #expect(try await c.call(.get, "/v1/events?limit=1&follow=false&from=now").status == 200)
        }
    }
}
