import Records
import HealthRecord
import TestSupport
import Testing

/// Entry ids: stable, unique within a patient, independent of order except among duplicates.
@Suite("entry identity")
struct EntryIdentityTests {
    @Test("an entry with _id is identified by its section and _id ($oid too)")
    func withSourceID() throws {
        #expect(try parseEntry(#"{"_id":"abc"}"#).id == StableID.make("e", ["results", "abc"]))
        #expect(try parseEntry(#"{"_id":{"$oid":"abc"}}"#, section: "conditions").id == StableID.make("e", ["conditions", "abc"]))
        #expect(try parseEntry(#"{"_id":{"$oid":"abc"}}"#).sourceID == "abc")
    }

    @Test("an entry without _id is identified by section, codes, times and description")
    func hashed() throws {
        let entry = try parseEntry(#"{"time":5,"description":"X"}"#)
        #expect(entry.id == StableID.make("e", ["results", "h", "", "5", "", "", "X"]))
        #expect(entry.sourceID == nil)
        let other = [
            #"{"time":6,"description":"X"}"#, #"{"time":5,"description":"Y"}"#, #"{"start_time":5,"description":"X"}"#,
            #"{"time":5,"description":"X","codes":{"LOINC":["1"]}}"#,
        ]
        for json in other {
            #expect(try parseEntry(json).id != entry.id, "\(json)")
        }
        // Members the identity does not use do not change it.
        #expect(try parseEntry(#"{"description":"X","time":5,"comment":"again"}"#).id == entry.id)
    }

    @Test("the order of code systems and codes does not change a hashed id")
    func codeOrder() throws {
        let a = try parseEntry(#"{"codes":{"A":["1","2"],"B":["3"]},"time":1}"#)
        let b = try parseEntry(#"{"codes":{"B":["3"],"A":["2","1"]},"time":1}"#)
        #expect(a.id == b.id)
    }

    @Test("ids do not depend on the order of entries", arguments: [true, false])
    func orderIndependent(withIDs: Bool) throws {
        let entries = (0..<6).map { i in
            withIDs ? #"{"_id":"id\#(i)","time":\#(i)}"# : #"{"time":\#(i),"description":"d\#(i)"}"#
        }
        let forward = try parseRecord(#"{"_id":"r","results":[\#(entries.joined(separator: ","))]}"#)
        let backward = try parseRecord(#"{"_id":"r","results":[\#(entries.reversed().joined(separator: ","))]}"#)
        let forwardIDs = Dictionary(uniqueKeysWithValues: forward.entries.map { ($0.time, $0.id) })
        let backwardIDs = Dictionary(uniqueKeysWithValues: backward.entries.map { ($0.time, $0.id) })
        #expect(forwardIDs == backwardIDs)
        #expect(Set(forwardIDs.values).count == 6)
    }

    @Test("a repeated _id gets #2, #3… in order of appearance", arguments: [#""_id":"dup","#, ""])
    func duplicates(idMember: String) throws {
        let entry = #"{\#(idMember)"time":1,"description":"same"}"#
        let record = try parseRecord(#"{"_id":"r","procedures":[\#(entry),\#(entry),\#(entry)]}"#)
        let base = idMember.isEmpty ? ["procedures", "h", "", "1", "", "", "same"] : ["procedures", "dup"]
        #expect(record.entries.map(\.id) == [
            StableID.make("e", base), StableID.make("e", base + ["#2"]), StableID.make("e", base + ["#3"]),
        ])
        #expect(Set(record.entries.map(\.rawJSON)).count == 1)
    }

    @Test("the same _id in two sections is two entries with two ids")
    func sameIDAcrossSections() throws {
        let record = try parseRecord(#"{"_id":"r","results":[{"_id":"x"}],"procedures":[{"_id":"x"}]}"#)
        #expect(record.entries.map(\.id) == [StableID.make("e", ["results", "x"]), StableID.make("e", ["procedures", "x"])])
    }

    @Test("a re-parse gives the same ids, also across parser instances")
    func reparse() throws {
        let json = #"{"_id":"r","results":[{"time":1},{"time":1},{"_id":"a"},{"_id":"a"}]}"#
        let first = try parseRecord(json).entries.map(\.id)
        let second = try parseRecord(json).entries.map(\.id)
        #expect(first == second)
        #expect(Set(first).count == 4)
    }
}
