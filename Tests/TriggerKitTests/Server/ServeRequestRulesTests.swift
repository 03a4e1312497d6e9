import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@_spi(Engine) import TriggerKit
@testable import TriggerKitServer

/// `triggerkit serve`'s rules on what a request carries besides its body: path escapes, query
/// parameters, `HEAD`, authentication. (Split from ``ServeAPITests``.)
@Suite("serve: paths, queries, HEAD and authentication")
struct ServeRequestRulesTests {
    /// A path parameter whose escapes do not decode to UTF-8 was taken literally (`%C3%28`
    /// named a device "%C3%28"; `100%` found a request "100%"): now a 400 naming it.
    @Test func aMalformedEscapeInThePathIsRefused() async throws {
        let serve = Serve()
        defer { serve.remove() }
        try await serve.run { c, _ async throws in
            var a = try await c.call(.put, "/v1/devices/%C3%28/settings", body: #"{"authorizationStatus":"provisional"}"#)
            #expect(a.status == 400, "\(a.body)")
            #expect(a.body.contains("is not percent-encoded UTF-8"), "\(a.body)")
            a = try await c.call(.get, "/v1/requests/100%")
            #expect(a.status == 400, "\(a.body)")
            // Written as the RFC says, they are read.
            let request = #"{"identifier":"100%","content":{"title":"t"},"trigger":{"type":"timeInterval","timeInterval":60,"repeats":true}}"#
            #expect(try await c.call(.post, "/v1/requests", body: request).status == 201)
            a = try await c.call(.get, "/v1/requests/100%25")
            #expect(a.status == 200, "\(a.body)")
            #expect(try await c.call(.put, "/v1/devices/caf%C3%A9/settings", body: #"{"authorizationStatus":"provisional"}"#).status == 200)
            #expect(try await c.call(.get, "/v1/devices/caf%C3%A9/settings").json?.objectValue?["authorizationStatus"] == .string("provisional"))
        }
    }

    /// A device id over the bound: `PUT` refused it and `GET` answered the default
    /// settings (a helper). Both are a 422 naming the bound now.
    @Test func anOverLongDeviceIdIsRefusedByGetAsByPut() async throws {
        let serve = Serve()
        defer { serve.remove() }
        try await serve.run { c, _ async throws in
            let long = String(repeating: "d", count: 1_025)
            for method in [HTTPRequest.Method.get, .put] {
                let a = try await c.call(method, "/v1/devices/\(long)/settings", body: method == .put ? #"{"authorizationStatus":"denied"}"# : nil)
                #expect(a.status == 422, "\(method) \(a.body)")
                #expect(a.body.contains("a device id is longer than 1024 UTF-8 bytes"), "\(method) \(a.body)")
            }
            #expect(try await c.call(.get, "/v1/devices/\(String(long.dropLast()))/settings").status == 200)
        }
    }

    /// The device "" (fixes without `device`) had no route for its settings: a denied "" was
    /// still delivered to (a helper: hundreds of deliveries `run` suppresses). `?device=`
    /// names it, and any other device as the path does.
    @Test func theEmptyDeviceSettingsAreSetByTheQuery() async throws {
        let serve = Serve()
        defer { serve.remove() }
        try await serve.run { c, _ async throws in
            var a = try await c.call(.put, "/v1/settings?device=", body: #"{"authorizationStatus":"denied"}"#)
            #expect(a.status == 200, "\(a.body)")
            #expect(try await c.call(.get, "/v1/settings?device=").json?.objectValue?["authorizationStatus"] == .string("denied"))
            #expect(try await c.call(.get, "/v1/settings?device=d1").json?.objectValue?["authorizationStatus"] == .string("authorized"))
            #expect(try await c.call(.put, "/v1/settings?device=caf%C3%A9", body: #"{"authorizationStatus":"provisional"}"#).status == 200)
            #expect(try await c.call(.get, "/v1/devices/caf%C3%A9/settings").json?.objectValue?["authorizationStatus"] == .string("provisional"))
            a = try await c.call(.get, "/v1/settings")
            #expect(a.status == 400 && a.body.contains("missing the query's device"), "\(a.body)")
            a = try await c.call(.get, "/v1/settings?devices=x")
            #expect(a.status == 400 && a.body.contains(#"unknown query parameter \"devices\""#), "\(a.body)")
            // The denied "" gets nothing; another device its enter.
            #expect(try await c.call(.post, "/v1/requests", body: Sample.circle("home")).status == 201)
            #expect(try await c.call(.post, "/v1/fixes", body: Sample.fixes(device: "", count: 8) + Sample.fixes(device: "d1", count: 8)).status == 200)
            let delivered = try await c.call(.get, "/v1/delivered").json?.objectValue?["delivered"]?.arrayValue ?? []
            #expect(!delivered.isEmpty)
            #expect(delivered.allSatisfy { $0.objectValue?["device"] == .string("d1") }, "\(delivered)")
        }
    }

    /// Unknown query parameters were ignored: `DELETE /v1/delivered?device=d1` emptied every
    /// device's history, a misspelt `limt` sent the whole list, and `?device=%FF` named the
    /// device "\u{FFFD}" (a helper's finds). Each is a 400 naming the parameter, and changes
    /// nothing.
    @Test func anUnknownOrUndecodableQueryParameterIsRefused() async throws {
        let serve = Serve()
        defer { serve.remove() }
        try await serve.run { c, _ async throws in
            #expect(try await c.call(.post, "/v1/requests", body: Sample.circle("home", device: "d1")).status == 201)
            #expect(try await c.call(.post, "/v1/requests", body: Sample.circle("work", device: "d2")).status == 201)
            #expect(try await c.call(.post, "/v1/fixes", body: Sample.fixes(device: "d1", count: 8)).status == 200)
            #expect(try await c.call(.post, "/v1/fixes", body: Sample.fixes(device: "d2", count: 8)).status == 200)
            let before = try await c.call(.get, "/v1/delivered").json?.objectValue?["delivered"]?.arrayValue ?? []
            #expect(before.count >= 2)
            var a = try await c.call(.delete, "/v1/delivered?devcie=d1")
            #expect(a.status == 400, "\(a.body)")
            #expect(a.body.contains(#"unknown query parameter \"devcie\": this route takes only device"#), "\(a.body)")
            #expect(try await c.call(.get, "/v1/delivered").json?.objectValue?["delivered"]?.arrayValue?.count == before.count)
            a = try await c.call(.delete, "/v1/requests/home?device=d1")
            #expect(a.status == 400, "\(a.body)")
            #expect(a.body.contains(#"unknown query parameter \"device\": this route takes no query parameters"#), "\(a.body)")
            #expect(try await c.call(.get, "/v1/requests/home").status == 200)
            a = try await c.call(.get, "/v1/requests?limt=1")
            #expect(a.status == 400, "\(a.body)")
            #expect(a.body.contains(#"unknown query parameter \"limt\": this route takes only device, limit, after"#), "\(a.body)")
            a = try await c.call(.get, "/v1/requests?device=%FF")
            #expect(a.status == 400, "\(a.body)")
            #expect(a.body.contains("is not percent-encoded UTF-8"), "\(a.body)")
            #expect(try await c.call(.get, "/v1/delivered?device=%FF").status == 400)
            #expect(try await c.call(.get, "/v1/stats?x=1").status == 400)
            // A name is compared as written: the route reads `li%6Dit` as no `limit`.
            #expect(try await c.call(.get, "/v1/requests?li%6Dit=1").status == 400)
            #expect(try await c.call(.head, "/v1/upcoming?limits=5").status == 400)
            // What the routes take is still read, escapes and all.
            #expect(try await c.call(.get, "/v1/requests?device=d%31&limit=1").json?.objectValue?["requests"]?.arrayValue?.count == 1)
            #expect(try await c.call(.get, "/v1/upcoming?limit=3&device=d1").status == 200)
            #expect(try await c.call(.get, "/v1/events?follow=false&device=d1").status == 200)
            #expect(try await c.call(.delete, "/v1/delivered").status == 204)
            #expect(try await c.call(.get, "/v1/delivered").json?.objectValue?["delivered"]?.arrayValue?.isEmpty == true)
        }
    }

    /// `HEAD` answered 404 on every route: now as `GET`, without a body.
    @Test func headIsAnsweredAsGetWithoutABody() async throws {
        let serve = Serve()
        defer { serve.remove() }
        try await serve.run { c, _ async throws in
            var a = try await c.call(.head, "/healthz", token: nil)
            #expect(a.status == 200)
            #expect(a.body.isEmpty)
            a = try await c.call(.head, "/v1/stats")
            #expect(a.status == 200)
            #expect(a.body.isEmpty)
            #expect(try await c.call(.head, "/v1/stats", token: nil).status == 401)
            #expect(try await c.call(.head, "/v1/requests/nothing-here").status == 404)
            // With the Content-Length a GET gets (RFC 9110 9.3.2 and 8.6: a HEAD's may only be
            // GET's); it was 0. (Found by a helper checking the README.)
            #expect(try await c.call(.post, "/v1/requests", body: Sample.every("tea", 60)).status == 201)
            for (uri, token) in [("/healthz", nil), ("/v1/requests/tea", Serve.tokenA), ("/v1/requests/nothing-here", Serve.tokenA),
                                 ("/v1/stats", nil)] as [(String, String?)] {
                let get = try await c.call(.get, uri, token: token), head = try await c.call(.head, uri, token: token)
                #expect(head.status == get.status, "\(uri)")
                #expect(head.body.isEmpty)
                #expect(get.headers[.contentLength] == String(get.body.utf8.count), "\(uri)")
                #expect(head.headers[.contentLength] == get.headers[.contentLength], "\(uri)")
            }
        }
    }

    @Test func authenticationFailuresAre401WithAJSONError() async throws {
        let serve = Serve()
        defer { serve.remove() }
        try await serve.run { c, _ in
            for (token, header) in [(nil, nil), ("nope", nil), (nil, "Basic YTpi"), (nil, "Bearer"), (nil, "Bearer ")] as [(String?, String?)] {
                let a = try await c.call(.get, "/v1/requests", token: token, headers: header.map { [("Authorization", $0)] } ?? [])
                #expect(a.status == 401)
                #expect(a.errorCode == "unauthorized")
                // The scheme it wants (RFC 9110 section 11.6.1; a helper found none).
                #expect(a.headers[.wwwAuthenticate] == "Bearer")
            }
            #expect(try await c.call(.post, "/v1/fixes", token: "nope", body: Sample.fixes(count: 1)).status == 401)
        }
    }
}
