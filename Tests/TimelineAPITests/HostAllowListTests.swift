import Testing
@testable import TimelineAPI

@Suite("Host allow list")
struct HostAllowListTests {
    @Test("a local name with its port, or bare, is allowed in any case; any other name or port is not")
    func names() {
        let hosts = HostAllowList()
        hosts.allow(ports: [8420], extraNames: ["Box.Local", "FE80::1"])
        for host in ["127.0.0.1:8420", "localhost:8420", "LOCALHOST:8420", "[::1]:8420", "localhost", "box.local:8420",
                     "BOX.LOCAL:8420", "[fe80::1]:8420", "[FE80::1]:8420"] {
            #expect(hosts.allows(host: host), "\(host)")
        }
        for host in ["evil.example:8420", "127.0.0.1:8421", "localhost.:8420", "", "[fe80::2]:8420"] {
            #expect(!hosts.allows(host: host), "\(host)")
        }
        #expect(hosts.allows(origin: "HTTP://LocalHost:8420"))
        #expect(!hosts.allows(origin: "https://localhost:8420"))
    }
}
