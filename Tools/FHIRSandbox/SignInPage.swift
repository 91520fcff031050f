import HTTPKit
import SandboxSupport

/// The authorize page: sign in, choose the patient, allow. Plain HTML, no script; the form posts back to
/// `/authorize` with the request in hidden fields.
enum SignInPage {
    /// The page's own CSP. HTTPKit's default has `form-action 'self'`, which Chromium applies to the
    /// redirect that answers the form too: the redirect to the client's (other) origin would be blocked.
    static let contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'"

    static func page(fields: [(String, String)], patients: [(String, String)], suggestedUser: String, error: String?) -> Response {
        var html = head("Sign in") + "<main><h1>FHIR sandbox</h1><p>An app asks to read a patient's record.</p>\n"
        if let error { html += "<p class=\"error\" role=\"alert\">\(escape(error))</p>\n" }
        html += "<form method=\"post\" action=\"/authorize\">\n"
        for (name, value) in fields {
            html += "<input type=\"hidden\" name=\"\(escape(name))\" value=\"\(escape(value))\">\n"
        }
        html += "<label>User name <input name=\"username\" autocomplete=\"username\" value=\"\(escape(suggestedUser))\" required></label>\n"
        html += "<label>Password <input name=\"password\" type=\"password\" autocomplete=\"current-password\" required></label>\n"
        html += "<label>Patient <select name=\"patient\">\n"
        for (id, label) in patients {
            html += "<option value=\"\(escape(id))\">\(escape(label))</option>\n"
        }
        html += "</select></label>\n"
        if let scope = fields.first(where: { $0.0 == "scope" })?.1 {
            html += "<p>Access asked for: <code>\(escape(scope))</code></p>\n"
        }
        html += "<button type=\"submit\" name=\"decision\" value=\"allow\">Sign in and allow</button>\n"
        html += "<button type=\"submit\" name=\"decision\" value=\"deny\" formnovalidate>Deny</button>\n"
        html += "</form><p class=\"hint\">The sandbox's users and passwords are printed by fhir-sandbox when it starts.</p></main></body></html>\n"
        return respond(html, status: .ok)
    }

    /// A request that cannot be sent back to the client: `400` with a page saying why.
    static func problem(_ title: String, _ text: String) -> Response {
        respond(head(title) + "<main><h1>\(escape(title))</h1><p>\(escape(text))</p></main></body></html>\n", status: .badRequest)
    }

    /// "Given Family (birth date)" from a Patient, else its id.
    static func label(of patient: JSON, id: String) -> String {
        let names = patient["name"]?.array ?? []
        let name = names.first { $0["use"]?.string == "official" } ?? names.first
        var parts = (name?["given"]?.array ?? []).compactMap(\.string)
        if let family = name?["family"]?.string { parts.append(family) }
        var label = parts.isEmpty ? (name?["text"]?.string ?? id) : parts.joined(separator: " ")
        if let birthDate = patient["birthDate"]?.string { label += " (born \(birthDate))" }
        return label
    }

    private static func head(_ title: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title)) – FHIR sandbox</title>
        <style>
        body { font: 16px/1.4 system-ui, sans-serif; margin: 2rem auto; max-width: 30rem; padding: 0 1rem; }
        label { display: block; margin: 0.8rem 0; } input, select { display: block; box-sizing: border-box; width: 100%; font: inherit; padding: 0.3rem; }
        button { font: inherit; padding: 0.4rem 1rem; margin-right: 0.5rem; } .error { color: #a00; } .hint { color: #555; font-size: 0.9em; }
        </style></head><body>

        """
    }

    private static func respond(_ html: String, status: HTTPResponseStatus) -> Response {
        var response = Response.text(html, status: status, contentType: "text/html; charset=utf-8")
        response.headers.replaceOrAdd(name: "Content-Security-Policy", value: contentSecurityPolicy)
        response.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
        return response
    }

    static func escape(_ text: String) -> String { MarkupEscaping.escape(text) }
}
