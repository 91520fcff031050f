import HTTPKit

/// Reads the fields of a posted body by its media type: a form or a flat JSON object.
enum PostBody {
    static func fields(of request: Request, limits: PostLimits) throws(HTTPError) -> PostFields {
        do throws(PostBodyError) {
            switch request.mediaType {
            case "application/x-www-form-urlencoded": return try FormBody.parse(request.bodyBytes, limits: limits)
            case "application/json": return try FlatJSONBody.parse(request.bodyBytes, limits: limits)
            case let other: throw .unsupportedMediaType(other)
            }
        } catch {
            throw APIError.badBody(error)
        }
    }
}
