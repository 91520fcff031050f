import SandboxSupport
import Testing

/// What both sandboxes take from SandboxSupport.
@Suite("Sandbox support")
struct SandboxSupportTests {
    @Test("--listen: host:port, an IPv6 host in brackets; anything else is refused")
    func listenAddress() {
        #expect(ListenAddress.parse("127.0.0.1:8421")! == ("127.0.0.1", 8421))
        #expect(ListenAddress.parse("[::1]:0")! == ("::1", 0))
        #expect(ListenAddress.parse("localhost:65535")! == ("localhost", 65535))
        for bad in ["8421", "host:", "host:65536", "host:-1", "host:http"] {
            #expect(ListenAddress.parse(bad) == nil, "\(bad)")
        }
    }

    @Test("markup: the five characters that matter are escaped, the rest is left as it is")
    func escaping() {
        #expect(MarkupEscaping.escape(#"<a href="x">O'Brien & Søn</a>"#)
                == "&lt;a href=&quot;x&quot;&gt;O&#39;Brien &amp; Søn&lt;/a&gt;")
    }

    @Test("SHA-256: FIPS 180-4's test vectors")
    func sha256() {
        #expect(SHA256.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
