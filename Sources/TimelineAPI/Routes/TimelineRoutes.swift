import HTTPKit
import Store

/// `GET` and `POST /timeline.json`, and the posted entries under `/timeline/entries/{id}`.
struct TimelineRoutes {
    let app: TimelineApp

    func register(in router: inout Router) {
        // Starts on the event loop: a page that is in the cache and cannot have changed (no commit since)
        // is answered from memory there, without the two thread hops to the pool and back.
        router.get("/timeline.json", startsOnEventLoop: true) { request, _ in try await timeline(request) }
        router.post("/timeline.json", bodyLimit: app.configuration.postLimits.maximumBodyBytes) { request, _ in
            try await post(request)
        }
        router.get("/timeline/entries/{id}") { _, context in try await entry(try context.parameters.require("id")) }
        router.delete("/timeline/entries/{id}") { _, context in try await delete(try context.parameters.require("id")) }
    }

    func timeline(_ request: Request) async throws -> Response {
        guard let page = request.query["page"].flatMap(TimelinePage.init(rawValue:)) else { throw APIError.badPage }
        let end: Int64
        if let text = request.query["end"] {
            guard let parsed = app.windows.end(text) else { throw APIError.badEnd }
            end = parsed
        } else {
            end = app.now()
        }
        let store = try app.store()
        let requested = request.query["patient"].flatMap { $0.isEmpty ? nil : $0 }
        let known = store.knownTimelineHead(patientID: requested, withEarliest: page == .all)
        if let head = known {
            let window = app.windows.window(page, endingAt: end, earliest: head.earliest)
            if let cached = app.cache.payload(for: PayloadCache.Key(patientID: head.patientID, revision: head.revision, window: window)) {
                return .json(buffer: cached)
            }
        }
        do {
            // Unless known from memory, one read resolves the patient and its revision: enough to answer
            // from the cache.
            let read: TimelineHead?
            if let known { read = known } else { read = try await store.timelineHead(patientID: requested, withEarliest: page == .all) }
            guard let head = read else { throw APIError.noPatient }
            let patientID = head.patientID
            let window = app.windows.window(page, endingAt: end, earliest: head.earliest)
            let key = PayloadCache.Key(patientID: patientID, revision: head.revision, window: window)
            if let cached = app.cache.payload(for: key) { return .json(buffer: cached) }
            guard let snapshot = try await store.timelineSnapshot(patientID: patientID, from: window.start, to: window.end) else {
                throw APIError.unknownPatient
            }
            let payload = ByteBuffer(bytes: TimelinePayload.encode(snapshot, window: window))
            // Keyed by the snapshot's own revision: a post that landed in between makes it newer, never staler.
            app.cache.store(payload, for: PayloadCache.Key(patientID: patientID, revision: snapshot.patient.revision, window: window))
            return .json(buffer: payload)
        } catch let error as StoreError {
            if case .notFound = error { throw APIError.unknownPatient }
            throw APIError.store(error)
        }
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
        } catch {
            throw APIError.store(error)
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
        let post: TimelinePost?
        do { post = try await store.timelinePost(id: id) } catch { throw APIError.store(error) }
        guard let post else { throw APIError.unknownEntry }
        return .json(writer: Self.json(post))
    }

    func delete(_ id: String) async throws -> Response {
        let store = try app.store()
        let deleted: Bool
        do { deleted = try await store.deleteTimelinePost(id: id) } catch { throw APIError.store(error) }
        guard deleted else { throw APIError.unknownEntry }
        return Response(status: .noContent)
    }

    static func json(_ post: TimelinePost) -> JSONWriter {
        var json = JSONWriter(capacity: 256)
        PostsEncoding.writePost(post, to: &json)
        return json
    }
}
