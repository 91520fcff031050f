import HTTPKit
import ImportJobs
import HealthRecord
import Store

/// A store failure that a route did not handle itself answers as `APIError.store` says: `423` when
/// locked, `503` when the store cannot take writes, `404` for something that is not there, else `500`.
extension StoreError: HTTPResponseError {
    public var response: Response { APIError.store(self).response }
}

/// `POST /imports` for a source that is not there (`404 unknown_source`) or with none added (`409 no_source`).
extension ImportQueue.Failure: HTTPResponseError {
    public var response: Response {
        switch self {
        case .unknownSource: return HTTPError(.notFound, code: "unknown_source", message: APIError.sentence(description)).response
        case .noSources: return HTTPError(.conflict, code: "no_source", message: APIError.sentence(description)).response
        case .store(let error): return error.response
        }
    }
}
