import FoundationEssentials
import Records

/// The token endpoint's answer (RFC 6749 §5.1): `{access_token, token_type, expires_in, refresh_token}`,
/// or its error (§5.2): `{"error": "invalid_grant", "error_description": …}`.
public struct TokenResponse: Sendable, Equatable {
    public var accessToken: String
    /// Seconds the access token lives; nil when the server does not say.
    public var expiresIn: Int64?
    /// A new refresh token, when the server rotates them or grants the first one.
    public var refreshToken: String?
    /// SMART App Launch: the patient in context, whose record the token reads.
    public var patient: String?

    public init(accessToken: String, expiresIn: Int64? = nil, refreshToken: String? = nil, patient: String? = nil) {
        self.accessToken = accessToken
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.patient = patient
    }

    /// The largest token we keep: real ones are tens to hundreds of bytes.
    static let maximumTokenBytes = 4096

    /// Parses a `200` answer.
    public static func parse(_ body: [UInt8]) throws(SyncError) -> TokenResponse {
        guard let object = jsonObject(body) else { throw .badTokenResponse("not a JSON object") }
        guard let access = text(object["access_token"]), !access.isEmpty else {
            throw .badTokenResponse("no access_token")
        }
        guard access.utf8.count <= maximumTokenBytes, isHeaderSafe(access) else {
            throw .badTokenResponse("the access_token is not a printable token of at most \(maximumTokenBytes) bytes")
        }
        if let type = text(object["token_type"]), type.lowercased() != "bearer" {
            throw .badTokenResponse("token_type \(type.prefix(40)) is not bearer")
        }
        var expiresIn: Int64?
        switch object["expires_in"] {
        case .number(let number)?: expiresIn = number.int64 ?? (number.double.isFinite ? Int64(exactly: number.double.rounded(.down)) : nil)
        case .string(let text)?: expiresIn = Int64(text)
        default: expiresIn = nil
        }
        if let value = expiresIn, value <= 0 { expiresIn = 0 }
        var refresh = text(object["refresh_token"])
        if let token = refresh, token.isEmpty || token.utf8.count > maximumTokenBytes { refresh = nil }
        // A FHIR id: letters, digits, '-' and '.', at most 64 (FHIR R4 §2.21.0.2); anything else is not kept.
        let patient = text(object["patient"]).flatMap { id in
            (1...64).contains(id.utf8.count) && id.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7a) || $0 == 0x2d || $0 == 0x2e } ? id : nil
        }
        return TokenResponse(accessToken: access, expiresIn: expiresIn, refreshToken: refresh, patient: patient)
    }

    /// The `error` code of an error answer, when it has one (a short, printable word).
    public static func errorCode(_ body: [UInt8]) -> String? {
        guard let code = text(jsonObject(body)?["error"]), !code.isEmpty, code.utf8.count <= 64,
              code.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || $0 == "_" || $0 == "-") })
        else { return nil }
        return code
    }

    /// A token answer is a small flat object: read with the project's own bounded JSON scanner.
    private static func jsonObject(_ body: [UInt8]) -> JSONObject? {
        guard case .object(let object)? = try? JSONDocument.parse(body, maxBytes: max(body.count, 1), maxDepth: 8) else { return nil }
        return object
    }

    private static func text(_ value: JSONValue?) -> String? {
        if case .string(let text)? = value { return text }
        return nil
    }

    /// Printable ASCII without spaces: safe to put in an `Authorization` header.
    static func isHeaderSafe(_ token: String) -> Bool {
        token.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f }
    }
}
