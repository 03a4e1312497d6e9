/// The OpenAPI document of `triggerkit serve`, served at `/openapi.json` (the same text as
/// `docs/openapi.json`; a test checks the two agree and that every route is in it).
enum OpenAPIDocument {
    static let json = #"{}"#
}
