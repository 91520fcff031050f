/// Serves the files of one directory: content types by extension, `ETag` and `Last-Modified`
/// with `304 Not Modified`, `index.html` for a directory, `Cache-Control`.
///
/// Mount it with `Router.mount(_:files:)`. Nothing outside the directory is ever served (see
/// `ContainedPath`); a refused path answers `404`, like a missing one, so that probing learns
/// nothing.
public struct FileServer: Sendable {
    public struct Configuration: Sendable {
        /// The file served for a directory.
        public var indexFile = "index.html"
        /// `Cache-Control` on every file. `no-cache` lets browsers keep a copy but revalidate it
        /// (cheap, thanks to `ETag`), so that an updated app is seen at once.
        public var cacheControl = "no-cache"
        /// Content types by lower-case extension.
        public var mediaTypes = MediaTypes.standard
        /// Whether names that start with a dot (`.git`, `.env`) are served.
        public var servesHiddenFiles = false
        /// Files up to this size are read here, in the handler, and sent with their head in one
        /// write; larger ones are streamed in chunks. A web app's files are small.
        public var maxInlineFileSize = 256 * 1024

        public init() {}
    }

    public enum RootError: Error, Equatable {
        case notFound(String)
        case notADirectory(String)
    }

    private let contained: ContainedPath
    private let configuration: Configuration

    /// - Throws: `RootError` when `root` is missing or not a directory.
    public init(root: String, configuration: Configuration = Configuration()) throws(RootError) {
        self.contained = try ContainedPath(root: root, allowsHiddenNames: configuration.servesHiddenFiles)
        self.configuration = configuration
    }

    /// Answers a request whose route ends in `**`: the captured rest is the path in the root.
    public func respond(to request: Request, context: RequestContext) async throws -> Response {
        let segments = context.parameters.catchAll ?? []
        let wantsDirectory = segments.last.map(\.isEmpty) ?? true
        let names = wantsDirectory && !segments.isEmpty ? segments.dropLast() : segments[...]
        let file: OpenFile
        do {
            switch try self.contained.open(names) {
            case .file(let opened):
                guard !wantsDirectory else { throw HTTPError.notFound }
                file = opened
            case .directory:
                // A directory's relative links only work from a URL that ends in "/".
                guard wantsDirectory, request.path.hasSuffix("/") else {
                    return Response.redirect(to: request.path + "/", status: .movedPermanently)
                }
                guard case .file(let index) = try self.contained.open(Array(names) + [self.configuration.indexFile]) else {
                    throw HTTPError.notFound
                }
                file = index
            }
        } catch let error as HTTPError {
            throw error
        } catch {
            throw HTTPError.notFound
        }
        var headers = HTTPHeaders()
        headers.add(name: "ETag", value: file.entityTag)
        headers.add(name: "Last-Modified", value: HTTPDate.format(epochSeconds: file.modificationSeconds))
        headers.add(name: "Cache-Control", value: self.configuration.cacheControl)
        if ConditionalRequest.isNotModified(
            headers: request.headers, entityTag: file.entityTag, modificationSeconds: file.modificationSeconds)
        {
            return Response(status: .notModified, headers: headers)
        }
        let name = wantsDirectory ? self.configuration.indexFile : names.last ?? ""
        headers.add(name: "Content-Type", value: MediaTypes.type(forFileName: name, in: self.configuration.mediaTypes))
        if request.method != .HEAD, file.size <= self.configuration.maxInlineFileSize {
            // A short read means the file shrank since fstat: its validators are stale too.
            guard let bytes = file.read(offset: 0, count: file.size), bytes.readableBytes == file.size else {
                throw HTTPError(.serviceUnavailable, code: "file_changed", message: "The file changed while it was read; try again.")
            }
            return Response(status: .ok, headers: headers, body: .bytes(bytes))
        }
        return Response(status: .ok, headers: headers, body: .file(file))
    }
}
