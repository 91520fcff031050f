import HTTPKit
import HealthRecord
import Store

/// `GET` and `POST /timeline.json`, and the posted entries under `/timeline/entries/{id}`.
struct TimelineRoutes {
    let app: TimelineApp

    func register(in router: inout Router) {
        // A page that is in the cache and cannot have changed (no commit since) is answered from memory on
        // the event loop, with no task made for the request (`cachedTimeline`); any other starts there too,
        // without the two thread hops to the pool and back until its first store read.
        router.get("/timeline.json", startsOnEventLoop: true, immediate: { request, _ in try cachedTimeline(request) }) { request, _ in
            try await timeline(request)
        }
        router.post("/timeline.json", bodyLimit: app.configuration.postLimits.maximumBodyBytes) { request, _ in
            try await post(request)
        }
        router.get("/timeline/entries/{id}") { _, context in try await entry(try context.parameters.require("id")) }
        router.delete("/timeline/entries/{id}") { _, context in try await delete(try context.parameters.require("id")) }
    }

    /// The page from the payload cache, on the event loop with no store read; nil when it must be read.
    func cachedTimeline(_ request: Request) throws -> Response? {
        let (asked, store) = try timelineRequest(request)
        return app.timeline.cachedPage(asked, store: store).map { .json(buffer: $0) }
    }

    func timeline(_ request: Request) async throws -> Response {
        let (asked, store) = try timelineRequest(request)
        if let cached = app.timeline.cachedPage(asked, store: store) { return .json(buffer: cached) }
        switch try await app.timeline.page(asked, store: store) {
        case .whole(let payload):
            return .json(buffer: payload)
        case .streamed(let stream):
            return Response(status: .ok, headers: ["Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store"],
                            body: .stream(stream))
        }
    }

    /// The page a request asks for, and the open store.
    private func timelineRequest(_ request: Request) throws -> (TimelineReader.Request, Store) {
        guard let page = request.query["page"].flatMap(TimelinePage.init(rawValue:)) else { throw APIError.badPage }
        let end: Int64
        if let text = request.query["end"] {
            guard let parsed = app.timeline.end(text) else { throw APIError.badEnd }
            end = parsed
        } else {
            end = app.now()
        }
        let store = try app.store()
        return (TimelineReader.Request(page: page, end: end, patientID: request.query["patient"].flatMap { $0.isEmpty ? nil : $0 }), store)
    }

    func post(_ request: Request) async throws -> Response {
        guard let kind = PostKey.kind(request.query["key"]) else { throw APIError.badKey }
        let fields = try PostBody.fields(of: request, limits: app.configuration.postLimits)
        let store = try app.store()
        let patientID = try await app.patientID(request, store: store)
        let post: TimelinePost
        do {
            post = try await store.addTimelinePost(patientID: patientID, kind: kind, dataJSON: fields.json, createdAt: app.now())
        } catch .notFound {
            throw APIError.unknownPatient
        }
        if request.prefersHTML {
            return .redirect(to: "/timeline/", status: .seeOther)
        }
        var response = Response.json(writer: Self.json(post), status: .created)
        response.headers.replaceOrAdd(name: "Location", value: "/timeline/entries/\(post.id)")
        return response
    }

    func entry(_ id: String) async throws -> Response {
        let store = try app.store()
        guard let post = try await store.timelinePost(id: id) else { throw APIError.unknownEntry }
        return .json(writer: Self.json(post))
    }

    func delete(_ id: String) async throws -> Response {
        let store = try app.store()
        guard try await store.deleteTimelinePost(id: id) else { throw APIError.unknownEntry }
        return Response(status: .noContent)
    }

    static func json(_ post: TimelinePost) -> JSONWriter {
        var json = JSONWriter(capacity: 256)
        PostsEncoding.writePost(post, to: &json)
        return json
    }
}
