import Testing
@testable import HTTPKit

@Suite("Request context values")
struct ContextValuesTests {
    enum Actor: ContextKey { typealias Value = String }
    enum Session: ContextKey { typealias Value = String? }
    enum Count: ContextKey { typealias Value = Int }

    @Test("a value is found by its key's type, replaced, and removed with nil; other keys keep theirs")
    func setReplaceRemove() {
        var values = ContextValues()
        #expect(values[Actor.self] == nil)
        values[Actor.self] = "token:abc"
        values[Count.self] = 2
        #expect(values[Actor.self] == "token:abc")
        #expect(values[Count.self] == 2)
        values[Actor.self] = "session 1234"
        #expect(values[Actor.self] == "session 1234")
        #expect(values[Count.self] == 2)
        values[Actor.self] = nil
        #expect(values[Actor.self] == nil)
        #expect(values[Count.self] == 2)
    }

    @Test("a key whose value is optional stores nil and a value alike")
    func optionalValue() {
        var values = ContextValues()
        values[Session.self] = .some(nil)  // a request without a session cookie
        #expect((values[Session.self] ?? "absent") == nil)
        values[Session.self] = "s1"
        #expect((values[Session.self] ?? "absent") == "s1")
    }
}
