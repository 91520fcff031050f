import Foundation
import HealthRecord
@testable import Library
import Records
import Testing
import TestSupport

/// One entry of the shared samples (its type, description and codes as the readers give them) and the
/// topic that explains it, checked by hand against the topic's summary; nil where any topic would be wrong.
struct EntryTopicPair: CustomTestStringConvertible, Sendable {
    let type: EntryType
    let description: String
    let codes: [String: [String]]
    let expected: String?
    let basis: TopicMatch.Basis?
    /// Where the entry is in the samples.
    let sample: String

    var testDescription: String { "\(type.rawValue) \"\(description)\" → \(expected ?? "no topic")" }

    init(_ type: EntryType, _ description: String, _ codes: [String: [String]], _ expected: String?, _ basis: TopicMatch.Basis? = .code, _ sample: String) {
        self.type = type
        self.description = description
        self.codes = codes
        self.expected = expected
        self.basis = expected == nil ? nil : basis
        self.sample = sample
    }

    var entry: Entry { Entry(id: "e", type: type, description: description, codes: codes) }
}

private let synthea = "synthea (fhir-samples)"
private let nancy = "hreader_ns_nancy_smith.json"
private let henry = "hreader_hs_henry_smith.json"
private let pds = "pds_records_500.ndjson"
private let timmy = "kinsights_phr_child_timmy_MESSY.xml"

@Suite("An entry finds the topic that explains it, or none")
struct EntryTopicTests {
    static let pairs: [EntryTopicPair] = [
        // Conditions
        .init(.condition, "Diabetes mellitus type 2 (disorder)", ["SNOMED-CT": ["44054006"]], "5930", .code, "cerner_transition_of_care_referral_summary.xml"),
        .init(.condition, "Diabetes", ["SNOMED-CT": ["44054006"]], "5930", .code, synthea),
        .init(.condition, "Diabetes mellitus type 1", ["SNOMED-CT": ["46635009"]], "1339", .code, timmy),
        .init(.condition, "Prediabetes", ["SNOMED-CT": ["15777000"]], "5784", .code, synthea),
        .init(.condition, "Hypertension", ["SNOMED-CT": ["38341003"]], "34", .code, synthea),
        .init(.condition, "Hypertension", ["ICD-10-CM": ["I10"], "ICD-9-CM": ["401.9"], "SNOMED-CT": ["59621000"]], "34", .code, henry),
        .init(.condition, "Hypertension", ["ICD-9-CM": ["401.0"]], "34", .name, pds),
        .init(.condition, "Heart Failure", ["ICD-10-CM": ["I50.9"], "ICD-9-CM": ["428.9"], "SNOMED-CT": ["84114007"]], "199", .code, henry),
        .init(.condition, "Prostate Cancer", ["ICD-10-CM": ["C61"], "ICD-9-CM": ["185"], "SNOMED-CT": ["399068003"]], "112", .code, henry),
        .init(.condition, "Primary Open Angle Glaucoma (POAG)", ["ICD-10-CM": ["H40.13"], "SNOMED-CT": ["84494001"]], "42", .code, henry),
        .init(.condition, "Colorectal Cancer", ["SNOMED-CT": ["109838007"]], "88", .code, pds),
        .init(.condition, "Asthma", ["SNOMED-CT": ["195967001"]], "2", .code, "allscripts_mu2_170.314B2_Amb_CCD.xml"),
        .init(.condition, "Childhood asthma", ["SNOMED-CT": ["233678006"]], "1507", .code, synthea),
        .init(.condition, "Persistent Asthma diagnosis", ["ICD-10-CM": ["J45.32"]], "2", .code, pds),
        .init(.condition, "Acute viral pharyngitis (disorder)", ["SNOMED-CT": ["195662009"]], "4748", .code, synthea),
        .init(.condition, "pharyngitis", ["SNOMED-CT": ["102453009"]], "4748", .name, pds),
        .init(.condition, "Viral sinusitis (disorder)", ["SNOMED-CT": ["444814009"]], "404", .code, synthea),
        .init(.condition, "Acute bacterial sinusitis (disorder)", ["SNOMED-CT": ["75498004"]], "404", .code, synthea),
        .init(.condition, "Pneumonia", ["SNOMED-CT": ["233604007"]], "363", .code, "hl7_ccda21_ccd1_full.xml"),
        .init(.condition, "Acute bronchitis", ["SNOMED-CT": ["10509002"]], "5755", .code, "kareo_is_actually_c32.ccd"),
        .init(.condition, "Anemia (disorder)", ["SNOMED-CT": ["271737000"]], "139", .code, synthea),
        .init(.condition, "Hypertriglyceridemia (disorder)", ["SNOMED-CT": ["302870006"]], "4277", .code, synthea),
        .init(.condition, "Diabetic retinopathy associated with type II diabetes mellitus (disorder)", ["SNOMED-CT": ["422034002"]], "1340", .code, synthea),
        .init(.condition, "Metabolic syndrome X (disorder)", ["SNOMED-CT": ["237602007"]], "3528", .code, synthea),
        .init(.condition, "Hyperglycemia (disorder)", ["SNOMED-CT": ["80394007"]], "6121", .code, synthea),
        .init(.condition, "Chest pain", ["SNOMED-CT": ["29857009"]], "4744", .code, "ccda21_companion_ccd.xml"),
        .init(.condition, "Angina (disorder)", ["SNOMED-CT": ["194828000"]], "142", .code, "cerner_transition_of_care_referral_summary.xml"),
        .init(.condition, "Perennial allergic rhinitis", ["SNOMED-CT": ["446096008"]], "24", .code, synthea),
        .init(.condition, "Hypercholesterolemia (disorder)", ["SNOMED-CT": ["13644009"]], "26", .code, "cerner_transition_of_care_referral_summary.xml"),
        .init(.condition, "Eczema", ["SNOMED-CT": ["43116000"]], "1215", .code, timmy),
        .init(.condition, "Cradle cap (Seborrheic dermatitis)", ["SNOMED-CT": ["50563003"]], "6410", .code, timmy),
        .init(.condition, "Closed fracture of radius AND ulna", ["SNOMED-CT": ["53627009"]], "257", .code, timmy),
        .init(.condition, "Ear infection (Otitis media)", ["SNOMED-CT": ["65363002"]], "115", .code, timmy),
        .init(.condition, "Conjunctivitis", ["SNOMED-CT": ["9826008"]], "4946", .code, timmy),
        .init(.condition, "Hypothyroidism", ["SNOMED-CT": ["40930008"]], "6175", .code, "kareo_is_actually_c32.ccd"),
        .init(.condition, "Transient ischemic attack", ["SNOMED-CT": ["266257000"], "Unknown": ["428"]], "1570", .code, nancy),
        .init(.condition, "Osteoporosis", ["SNOMED-CT": ["64859006"], "Unknown": ["299"]], "37", .code, nancy),
        .init(.condition, "Sciatica", ["SNOMED-CT": ["23056005"], "Unknown": ["462"]], "1532", .code, nancy),
        .init(.condition, "Cystic Fibrosis", ["SNOMED-CT": ["190905008"]], "203", .code, pds),
        .init(.condition, "chronic pain", [:], "5995", .name, nancy),
        .init(.condition, "rosacea", [:], "1247", .name, nancy),
        .init(.condition, "sore throat", [:], "4748", .name, nancy),
        .init(.condition, "Tobacco Non-user", ["SNOMED-CT": ["105539002"]], nil, nil, pds),
        .init(.condition, "bullous pemphigoid", [:], nil, nil, nancy),  // not Pemphigus, another disease
        .init(.condition, "Costochondritis", ["SNOMED-CT": ["64109004"]], nil, nil, "allscripts_mu2_170.314B2_Amb_CCD.xml"),
        .init(.condition, "H/O Overweight", ["SNOMED-CT": ["238131007"], "Unknown": ["833"]], nil, nil, nancy),  // not Obesity
        .init(.condition, "Reflux", ["SNOMED-CT": ["47268002"]], nil, nil, timmy),  // GERD? in children? in infants? none is known
        .init(.condition, "Contact dermatitis", ["SNOMED-CT": ["40275004"], "Unknown": ["749"]], nil, nil, nancy),
        // Results
        .init(.result, "Hemoglobin A1c/Hemoglobin.total in Blood", ["LOINC": ["4548-4"]], "6308", .code, synthea),
        .init(.result, "HbA1c Result", ["SNOMED-CT": ["117346004"]], "6308", .code, pds),
        .init(.result, "Glucose", ["LOINC": ["2339-0"]], "6121", .code, synthea),
        .init(.result, "Total Cholesterol", ["CPT": ["82465"], "LOINC": ["2093-3"], "SNOMED-CT": ["121868005"]], "6781", .code, henry),
        .init(.result, "Low Density Lipoprotein Cholesterol", ["LOINC": ["18262-6"]], "6783", .code, synthea),
        .init(.result, "High Density Lipoprotein Cholesterol", ["LOINC": ["2085-9"]], "6785", .code, synthea),
        .init(.result, "Triglycerides", ["LOINC": ["2571-8"]], "4277", .code, synthea),
        .init(.result, "Hemoglobin", ["LOINC": ["718-7"]], "6351", .code, "hl7_ccda21_ccd1_full.xml"),
        .init(.result, "Platelets [#/volume] in Blood by Automated count", ["LOINC": ["777-3"]], "6351", .code, synthea),
        .init(.result, "CBC WO DIFFERENTIAL", ["SNOMED-CT": ["43789009"]], "6351", .code, "hds_sample_ccda.xml"),
        .init(.result, "Creatinine", ["LOINC": ["38483-4"]], "6382", .code, synthea),
        .init(.result, "Estimated Glomerular Filtration Rate", ["LOINC": ["33914-3"]], "6382", .code, synthea),
        .init(.result, "Potassium", ["LOINC": ["6298-4"]], "4224", .code, synthea),  // not the dietary "Potassium" topic
        .init(.result, "Sodium", ["LOINC": ["2947-0"]], "4224", .code, synthea),  // not the dietary "Sodium" topic
        .init(.result, "Calcium", ["LOINC": ["49765-1"]], "4224", .code, synthea),  // not the dietary "Calcium" topic
        .init(.result, "CO2", ["LOINC": ["2028-9"]], "4224", .code, "allscripts_mu2_170.314B2_Amb_CCD.xml"),
        .init(.result, "Peanut IgE Ab in Serum", ["LOINC": ["6206-7"]], "1256", .code, synthea),
        .init(.result, "Latex IgE Ab in Serum", ["LOINC": ["6158-0"]], "1439", .code, synthea),
        .init(.result, "Common Ragweed IgE Ab in Serum", ["LOINC": ["6085-5"]], "4746", .code, synthea),
        .init(.result, "Cervical cancer screening", ["SNOMED-CT": ["439958008"]], "6206", .code, pds),
        .init(.result, "Chlamydia screening", ["SNOMED-CT": ["104281002"]], "1307", .code, pds),
        .init(.result, "Prostate Specific Antigen Test", ["CPT": ["84153"], "LOINC": ["19195-7"], "SNOMED-CT": ["63476009"]], "6208", .code, henry),
        .init(.result, "Troponin", ["SNOMED-CT": ["261650005"]], nil, nil, henry),
        .init(.result, "BNP", ["SNOMED-CT": ["261650005"]], nil, nil, henry),
        .init(.result, "Procedure indicative of sexual activity", ["CPT": ["86592"]], nil, nil, pds),
        // Immunizations
        .init(.immunization, "Hep B, adolescent or pediatric", ["CVX": ["08"]], "1687", .code, synthea),
        .init(.immunization, "Influenza, seasonal, injectable, preservative free", ["CVX": ["140"]], "6236", .code, synthea),
        .init(.immunization, "MMR", ["CVX": ["03"]], "318", .code, synthea),
        .init(.immunization, "IPV", ["CVX": ["10"]], "365", .code, synthea),
        .init(.immunization, "DTaP", ["CVX": ["20"]], "6322", .code, synthea),
        .init(.immunization, "varicella", ["CVX": ["21"]], "182", .code, synthea),
        .init(.immunization, "HPV, quadrivalent", ["CVX": ["62"]], "1715", .code, synthea),
        .init(.immunization, "Pneumococcal conjugate PCV 13", ["CVX": ["133"]], "5714", .code, synthea),
        .init(.immunization, "SARS-COV-2 (COVID-19) vaccine, mRNA, spike protein, LNP, preservative free, 30 mcg/0.3mL dose", ["CVX": ["208"]], "7647", .code, synthea),
        .init(.immunization, "zoster vaccine, live", ["CVX": ["121"]], "90", .code, synthea),
        .init(.immunization, "Hib (PRP-OMP)", ["CVX": ["49"]], "5968", .code, synthea),
        .init(.immunization, "meningococcal MCV4P", ["CVX": ["114"]], "5651", .code, synthea),
        .init(.immunization, "rotavirus, monovalent", ["CVX": ["119"]], "3215", .code, synthea),
        .init(.immunization, "Hep A, adult", ["CVX": ["52"]], "1686", .code, synthea),
        .init(.immunization, "Td (adult), 5 Lf tetanus toxoid, preservative free, adsorbed", ["CVX": ["113"]], "6322", .code, synthea),
        .init(.immunization, "Influenza virus vaccine", ["2.16.840.1.113883.6.59": ["88"]], "6236", .code, "ccda21_companion_ccd.xml"),
        .init(.immunization, "Pneumococcal (PCV, PPSV)", ["2.16.840.1.113883.6.59": ["33"]], "5714", .code, "kareo_is_actually_c32.ccd"),
        .init(.immunization, "Influenza Vaccine", ["RxNorm": ["857942"]], "6236", .code, nancy),
        .init(.immunization, "Pneumonia Vaccine", ["RxNorm": ["854931"]], "5714", .code, nancy),
        .init(.immunization, "Something", ["CVX": ["04"]], "318", .code, "hds_v4_barry_berry.json"),  // the code, not the name
    ]

    @Test("every hand-checked pair", arguments: pairs)
    func pair(_ pair: EntryTopicPair) throws {
        let about = try InstalledStarter.library.about(pair.entry)
        if let expected = pair.expected {
            let match = about.topics.first { $0.topic.id == expected }
            #expect(match != nil, "found \(about.topics.map { "\($0.topic.id) \($0.topic.title)" })")
            #expect(match?.basis == pair.basis)
            #expect(match?.attribution.source == "Source: MedlinePlus, National Library of Medicine")
        } else {
            #expect(about.topics.isEmpty, "found \(about.topics.map { "\($0.topic.id) \($0.topic.title)" })")
        }
    }

    @Test("at least 60 pairs, and some where no topic is the right answer")
    func enoughPairs() {
        #expect(Self.pairs.count >= 60)
        #expect(Self.pairs.filter { $0.expected == nil }.count >= 8)
        print("entry → topic pairs: \(Self.pairs.count) (\(Self.pairs.filter { $0.expected != nil }.count) with a topic, \(Self.pairs.filter { $0.expected == nil }.count) with none)")
    }

    @Test("an immunization brings CDC's vaccine, and its vaccine topic comes first")
    func vaccineFirst() throws {
        let about = try InstalledStarter.library.about(Entry(id: "e", type: .immunization, description: "DTaP", codes: ["CVX": ["20"]]))
        #expect(about.topics.first?.topic.title == "Tetanus, Diphtheria, and Pertussis Vaccines")
        #expect(about.topics.first?.via == "cvx-group:107")
        #expect(about.vaccine?.code == "20" && about.vaccine?.attribution.source == "Source: CDC")
        let adenovirus = try InstalledStarter.library.about(Entry(id: "e", type: .immunization, description: "adenovirus", codes: ["CVX": ["54"]]))
        #expect(adenovirus.topics.map(\.topic.id) == ["294"])
        let globulin = try InstalledStarter.library.about(Entry(id: "e", type: .immunization, description: "Hep B IG", codes: ["CVX": ["30"]]))
        #expect(globulin.vaccine?.isNonvaccine == true && globulin.topics.isEmpty)
    }
}

@Suite("How much of the shared samples finds a topic")
struct SampleCoverageTests {
    struct Tally: CustomStringConvertible {
        var entries = 0, withTopic = 0, byCode = 0, byName = 0
        var description: String {
            "\(withTopic) of \(entries) (\(entries == 0 ? 0 : withTopic * 100 / entries)%; \(byCode) by code, \(byName) by name)"
        }
    }

    /// Every condition, result and immunization the project's readers find in the shared samples.
    static func sampleEntries() throws -> [(String, Entry)] {
        var entries: [(String, Entry)] = []
        let rhex = SharedSamples.rhex
        for name in ["hreader_hs_henry_smith.json", "hreader_ns_nancy_smith.json", "hds_v2.1.1_rosa.json", "hds_v4_barry_berry.json", "pds_records_500.ndjson"] {
            for item in try RecordFileReader(path: rhex.path(name)).readAll() {
                if case let .success(record) = item.result { entries += record.entries.map { ("rhex", $0) } }
            }
        }
        let fhir = SharedSamples.fhir
        var files: [FHIRInput.File] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: fhir.directory).sorted() where name.hasSuffix(".json") {
            files.append(try FHIRInput.read(try fhir.bytes(name), name: name))
        }
        for name in try FileManager.default.contentsOfDirectory(atPath: fhir.path("bulk-10-patients")).sorted() where name.hasSuffix(".ndjson") {
            files.append(try FHIRInput.read(try fhir.bytes("bulk-10-patients/" + name), name: name))
        }
        for file in files {
            for patient in FHIRReader().assemble([file]).patients { entries += (patient.record?.entries ?? []).map { ("fhir", $0) } }
        }
        let ccda = SharedSamples.ccda
        var documents = try FileManager.default.contentsOfDirectory(atPath: ccda.directory).sorted().filter { $0.hasSuffix(".xml") || $0.hasSuffix(".ccd") }
            .map { ccda.path($0) }
        documents += ["hds_sample_ccda.xml", "pds_Henry_Smith44_c32.xml"].map { rhex.path($0) }
        for path in documents {
            let result = try CCDAReader().read(fileBytes(path), name: path)
            entries += result.record.entries.map { ("c-cda", $0) }
        }
        return entries.filter { [.condition, .result, .immunization].contains($0.1.type) }
    }

    @Test("conditions, results and immunizations of the shared samples that find a topic (figures printed)",
          .enabled(if: SharedSamples.rhex.available && SharedSamples.fhir.available && SharedSamples.ccda.available, "../shared samples are absent"))
    func coverage() throws {
        var tallies: [EntryType: Tally] = [:]
        var bySource: [String: Tally] = [:]
        let library = InstalledStarter.library
        for (source, entry) in try Self.sampleEntries() {
            let about = try library.about(entry)
            for key in [entry.type] {
                tallies[key, default: Tally()].entries += 1
                bySource[source, default: Tally()].entries += 1
                guard let first = about.topics.first else { continue }
                tallies[key]!.withTopic += 1
                bySource[source]!.withTopic += 1
                if first.basis == .code { tallies[key]!.byCode += 1; bySource[source]!.byCode += 1 } else { tallies[key]!.byName += 1; bySource[source]!.byName += 1 }
            }
        }
        for type in [EntryType.condition, .result, .immunization] { print("coverage \(type.rawValue)s: \(tallies[type] ?? Tally())") }
        for source in bySource.keys.sorted() { print("coverage \(source): \(bySource[source]!)") }
        // Floors a little below what was measured with the first reviewed tables: conditions 447 of 901 (the
        // 500-patient sample's measure entries, "Tobacco Non-user", "Pregnant", "Live birth", ICD-9 codes, have
        // no right topic or no reviewed code), results 819 of 978, immunizations 256 of 256.
        #expect(tallies[.condition]?.withTopic ?? 0 >= 440)
        #expect(tallies[.result]?.withTopic ?? 0 >= 800)
        #expect(tallies[.immunization]?.withTopic ?? 0 >= 250)
    }
}
