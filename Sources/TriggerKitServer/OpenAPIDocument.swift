/// The OpenAPI document of `triggerkit serve` (`openapi.json` beside this file, embedded in
/// the binary; `docs/openapi.json` links to it), served at `/openapi.json`. A test checks it
/// against the router both ways.
enum OpenAPIDocument {
    static let json = String(decoding: PackageResources.openapi_json, as: UTF8.self)
}
