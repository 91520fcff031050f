import HTTPKit
import Records

/// A small JSON object a route takes as its whole body (a person's settings, an annotation, a choice):
/// `application/json`, within the route's limit and nesting, an object. Anything else is a clear error.
enum JSONObjectBody {
    static func parse(_ request: Request, limit: Int, depth: Int, what: String) throws -> JSONObject {
        guard request.mediaType == "application/json" else {
            throw HTTPError(.unsupportedMediaType, code: "unsupported_media_type", message: "Send \(what) as application/json.")
        }
        let document: JSONValue
        do {
            document = try JSONDocument.parse(request.bodyBytes, maxBytes: limit, maxDepth: depth)
        } catch {
            switch error {
            case .tooLarge: throw HTTPError.payloadTooLarge
            default: throw HTTPError.badRequest("The body is not JSON: \(error).", code: "bad_body")
            }
        }
        guard case .object(let object) = document else { throw HTTPError.badRequest("Send \(what) as a JSON object.", code: "bad_body") }
        return object
    }
}
