import HealthRecord
import Records
/// The clinical vocabulary of synthetic records: real code systems and real-looking codes, so that the
/// demo's timeline reads like a chart and the parser sees what real records hold. Not clinical truth;
/// nothing here is advice or a reference.
enum Vocabulary {
    struct Code: Sendable {
        let system: String
        let value: String
    }

    struct Condition: Sendable {
        let description: String
        let codes: [Code]
        /// Chronic conditions stay active; acute ones resolve within weeks.
        let chronic: Bool
        let minimumAge: Int
    }

    struct Medication: Sendable {
        let description: String
        let rxnorm: String
        /// Long-term medications stay active; courses (antibiotics, pain relief) complete in days.
        let longTerm: Bool
        let minimumAge: Int
    }

    struct Procedure: Sendable {
        let description: String
        let codes: [Code]
        let minimumAge: Int
    }

    struct Vaccine: Sendable {
        let description: String
        let cvx: String
        let ages: ClosedRange<Int>
    }

    struct Allergy: Sendable {
        let description: String
        let code: Code
    }

    struct Encounter: Sendable {
        enum Setting: Sendable { case office, emergency, inpatient }
        let description: String
        let cpt: String
        let setting: Setting
        /// Relative frequency among encounters.
        let weight: Int
    }

    struct LabTest: Sendable {
        let description: String
        let loinc: String
        let units: String?
        let range: ClosedRange<Double>
        let decimals: Int
        /// Qualitative tests give one of these words instead of a number.
        let answers: [String]
    }

    struct Vital: Sendable {
        let description: String
        let loinc: String
        let units: String
        let decimals: Int
    }

    static let conditions: [Condition] = [
        Condition(description: "Essential hypertension", codes: [Code(system: "SNOMED-CT", value: "59621000"), Code(system: "ICD-10-CM", value: "I10")], chronic: true, minimumAge: 25),
        Condition(description: "Type 2 diabetes mellitus", codes: [Code(system: "SNOMED-CT", value: "44054006"), Code(system: "ICD-10-CM", value: "E11.9")], chronic: true, minimumAge: 30),
        Condition(description: "Hyperlipidemia", codes: [Code(system: "SNOMED-CT", value: "55822004"), Code(system: "ICD-10-CM", value: "E78.5")], chronic: true, minimumAge: 30),
        Condition(description: "Asthma", codes: [Code(system: "SNOMED-CT", value: "195967001"), Code(system: "ICD-10-CM", value: "J45.909")], chronic: true, minimumAge: 3),
        Condition(description: "Gastroesophageal reflux disease", codes: [Code(system: "SNOMED-CT", value: "235595009"), Code(system: "ICD-10-CM", value: "K21.9")], chronic: true, minimumAge: 18),
        Condition(description: "Osteoarthritis of knee", codes: [Code(system: "SNOMED-CT", value: "239873007"), Code(system: "ICD-10-CM", value: "M17.9")], chronic: true, minimumAge: 45),
        Condition(description: "Hypothyroidism", codes: [Code(system: "SNOMED-CT", value: "40930008"), Code(system: "ICD-10-CM", value: "E03.9")], chronic: true, minimumAge: 20),
        Condition(description: "Migraine", codes: [Code(system: "SNOMED-CT", value: "37796009"), Code(system: "ICD-10-CM", value: "G43.909")], chronic: true, minimumAge: 12),
        Condition(description: "Major depressive disorder", codes: [Code(system: "SNOMED-CT", value: "35489007"), Code(system: "ICD-10-CM", value: "F32.9")], chronic: true, minimumAge: 14),
        Condition(description: "Generalized anxiety disorder", codes: [Code(system: "SNOMED-CT", value: "21897009"), Code(system: "ICD-10-CM", value: "F41.1")], chronic: true, minimumAge: 14),
        Condition(description: "Atrial fibrillation", codes: [Code(system: "SNOMED-CT", value: "49436004"), Code(system: "ICD-10-CM", value: "I48.91")], chronic: true, minimumAge: 55),
        Condition(description: "Chronic kidney disease stage 3", codes: [Code(system: "SNOMED-CT", value: "433144002"), Code(system: "ICD-10-CM", value: "N18.30")], chronic: true, minimumAge: 50),
        Condition(description: "Obesity", codes: [Code(system: "SNOMED-CT", value: "414916001"), Code(system: "ICD-10-CM", value: "E66.9")], chronic: true, minimumAge: 10),
        Condition(description: "Allergic rhinitis", codes: [Code(system: "SNOMED-CT", value: "61582004"), Code(system: "ICD-10-CM", value: "J30.9")], chronic: true, minimumAge: 4),
        Condition(description: "Prediabetes", codes: [Code(system: "SNOMED-CT", value: "714628002"), Code(system: "ICD-10-CM", value: "R73.03")], chronic: true, minimumAge: 25),
        Condition(description: "Vitamin D deficiency", codes: [Code(system: "SNOMED-CT", value: "34713006"), Code(system: "ICD-10-CM", value: "E55.9")], chronic: false, minimumAge: 10),
        Condition(description: "Iron deficiency anemia", codes: [Code(system: "SNOMED-CT", value: "87522002"), Code(system: "ICD-10-CM", value: "D50.9")], chronic: false, minimumAge: 1),
        Condition(description: "Atopic dermatitis", codes: [Code(system: "SNOMED-CT", value: "24079001"), Code(system: "ICD-10-CM", value: "L20.9")], chronic: true, minimumAge: 0),
        Condition(description: "Attention deficit hyperactivity disorder", codes: [Code(system: "SNOMED-CT", value: "406506008"), Code(system: "ICD-10-CM", value: "F90.9")], chronic: true, minimumAge: 6),
        Condition(description: "Acute bronchitis", codes: [Code(system: "SNOMED-CT", value: "10509002"), Code(system: "ICD-10-CM", value: "J20.9")], chronic: false, minimumAge: 0),
        Condition(description: "Streptococcal sore throat", codes: [Code(system: "SNOMED-CT", value: "43878008"), Code(system: "ICD-10-CM", value: "J02.0")], chronic: false, minimumAge: 3),
        Condition(description: "Otitis media", codes: [Code(system: "SNOMED-CT", value: "65363002"), Code(system: "ICD-10-CM", value: "H66.90")], chronic: false, minimumAge: 0),
        Condition(description: "Sprain of ankle", codes: [Code(system: "SNOMED-CT", value: "44465007"), Code(system: "ICD-10-CM", value: "S93.409A")], chronic: false, minimumAge: 5),
        Condition(description: "Urinary tract infection", codes: [Code(system: "SNOMED-CT", value: "68566005"), Code(system: "ICD-10-CM", value: "N39.0")], chronic: false, minimumAge: 2),
        Condition(description: "Acute viral sinusitis", codes: [Code(system: "SNOMED-CT", value: "444814009"), Code(system: "ICD-10-CM", value: "J01.90")], chronic: false, minimumAge: 2),
        Condition(description: "Low back pain", codes: [Code(system: "SNOMED-CT", value: "279039007"), Code(system: "ICD-10-CM", value: "M54.50")], chronic: false, minimumAge: 16),
        Condition(description: "Viral gastroenteritis", codes: [Code(system: "SNOMED-CT", value: "25374005"), Code(system: "ICD-10-CM", value: "A08.4")], chronic: false, minimumAge: 0),
        Condition(description: "Community acquired pneumonia", codes: [Code(system: "SNOMED-CT", value: "385093006"), Code(system: "ICD-10-CM", value: "J18.9")], chronic: false, minimumAge: 0),
    ]

    static let medications: [Medication] = [
        Medication(description: "Lisinopril 10 MG Oral Tablet", rxnorm: "314076", longTerm: true, minimumAge: 25),
        Medication(description: "Amlodipine 5 MG Oral Tablet", rxnorm: "197361", longTerm: true, minimumAge: 25),
        Medication(description: "Hydrochlorothiazide 25 MG Oral Tablet", rxnorm: "310798", longTerm: true, minimumAge: 25),
        Medication(description: "Metformin hydrochloride 500 MG Oral Tablet", rxnorm: "861007", longTerm: true, minimumAge: 30),
        Medication(description: "Atorvastatin 20 MG Oral Tablet", rxnorm: "617310", longTerm: true, minimumAge: 30),
        Medication(description: "Simvastatin 20 MG Oral Tablet", rxnorm: "312961", longTerm: true, minimumAge: 30),
        Medication(description: "Metoprolol succinate 25 MG Extended Release Oral Tablet", rxnorm: "866924", longTerm: true, minimumAge: 40),
        Medication(description: "Levothyroxine sodium 0.05 MG Oral Tablet", rxnorm: "966222", longTerm: true, minimumAge: 20),
        Medication(description: "Furosemide 20 MG Oral Tablet", rxnorm: "310429", longTerm: true, minimumAge: 50),
        Medication(description: "Aspirin 81 MG Oral Tablet", rxnorm: "243670", longTerm: true, minimumAge: 40),
        Medication(description: "Albuterol 0.09 MG/ACTUAT Metered Dose Inhaler", rxnorm: "745679", longTerm: true, minimumAge: 3),
        Medication(description: "Fluticasone propionate 0.05 MG/ACTUAT Nasal Spray", rxnorm: "895994", longTerm: true, minimumAge: 4),
        Medication(description: "Sertraline 50 MG Oral Tablet", rxnorm: "312940", longTerm: true, minimumAge: 14),
        Medication(description: "Amoxicillin 500 MG Oral Capsule", rxnorm: "308191", longTerm: false, minimumAge: 8),
        Medication(description: "Amoxicillin 250 MG Oral Capsule", rxnorm: "308182", longTerm: false, minimumAge: 0),
        Medication(description: "Penicillin V Potassium 250 MG Oral Tablet", rxnorm: "834061", longTerm: false, minimumAge: 3),
        Medication(description: "Ibuprofen 200 MG Oral Tablet", rxnorm: "310965", longTerm: false, minimumAge: 6),
        Medication(description: "Acetaminophen 325 MG Oral Tablet", rxnorm: "313782", longTerm: false, minimumAge: 2),
        Medication(description: "Naproxen sodium 220 MG Oral Tablet", rxnorm: "849574", longTerm: false, minimumAge: 12),
    ]

    static let procedures: [Procedure] = [
        Procedure(description: "Electrocardiogram", codes: [Code(system: "SNOMED-CT", value: "29303009"), Code(system: "CPT", value: "93000")], minimumAge: 18),
        Procedure(description: "Screening colonoscopy", codes: [Code(system: "SNOMED-CT", value: "73761001"), Code(system: "CPT", value: "45378")], minimumAge: 45),
        Procedure(description: "Screening mammography", codes: [Code(system: "SNOMED-CT", value: "71651007"), Code(system: "CPT", value: "77067")], minimumAge: 40),
        Procedure(description: "Plain chest X-ray", codes: [Code(system: "SNOMED-CT", value: "399208008"), Code(system: "CPT", value: "71046")], minimumAge: 0),
        Procedure(description: "Spirometry", codes: [Code(system: "SNOMED-CT", value: "127783003"), Code(system: "CPT", value: "94010")], minimumAge: 6),
        Procedure(description: "Transthoracic echocardiography", codes: [Code(system: "SNOMED-CT", value: "433236007"), Code(system: "CPT", value: "93306")], minimumAge: 30),
        Procedure(description: "Suture of skin wound", codes: [Code(system: "SNOMED-CT", value: "30549001"), Code(system: "CPT", value: "12001")], minimumAge: 2),
        Procedure(description: "Physical therapy session", codes: [Code(system: "SNOMED-CT", value: "91251008"), Code(system: "CPT", value: "97110")], minimumAge: 10),
        Procedure(description: "Depression screening", codes: [Code(system: "SNOMED-CT", value: "171207006"), Code(system: "HCPCS", value: "G0444")], minimumAge: 12),
        Procedure(description: "Dental cleaning", codes: [Code(system: "SNOMED-CT", value: "234723000")], minimumAge: 3),
        Procedure(description: "Appendectomy", codes: [Code(system: "SNOMED-CT", value: "80146002"), Code(system: "CPT", value: "44970")], minimumAge: 5),
    ]

    static let vaccines: [Vaccine] = [
        Vaccine(description: "Influenza, seasonal, injectable, preservative free", cvx: "140", ages: 0...120),
        Vaccine(description: "Hep B, adolescent or pediatric", cvx: "08", ages: 0...1),
        Vaccine(description: "DTaP", cvx: "20", ages: 0...6),
        Vaccine(description: "IPV", cvx: "10", ages: 0...6),
        Vaccine(description: "Hib (PRP-OMP)", cvx: "49", ages: 0...2),
        Vaccine(description: "Pneumococcal conjugate PCV 13", cvx: "133", ages: 0...2),
        Vaccine(description: "Rotavirus, pentavalent", cvx: "116", ages: 0...1),
        Vaccine(description: "MMR", cvx: "03", ages: 1...6),
        Vaccine(description: "Varicella", cvx: "21", ages: 1...12),
        Vaccine(description: "Hep A, pediatric/adolescent, 2 dose", cvx: "83", ages: 1...4),
        Vaccine(description: "Tdap", cvx: "115", ages: 11...120),
        Vaccine(description: "HPV9", cvx: "165", ages: 11...26),
        Vaccine(description: "Meningococcal MCV4O", cvx: "136", ages: 11...18),
        Vaccine(description: "Td (adult), 5 Lf tetanus toxoid, preservative free", cvx: "139", ages: 19...120),
        Vaccine(description: "Zoster recombinant", cvx: "187", ages: 50...120),
        Vaccine(description: "Pneumococcal polysaccharide PPV23", cvx: "33", ages: 65...120),
        Vaccine(description: "COVID-19, mRNA, LNP-S, PF, 30 mcg/0.3 mL dose", cvx: "208", ages: 12...120),
    ]

    static let allergies: [Allergy] = [
        Allergy(description: "Penicillin G", code: Code(system: "RxNorm", value: "7980")),
        Allergy(description: "Amoxicillin", code: Code(system: "RxNorm", value: "723")),
        Allergy(description: "Sulfamethoxazole", code: Code(system: "RxNorm", value: "10180")),
        Allergy(description: "Aspirin", code: Code(system: "RxNorm", value: "1191")),
        Allergy(description: "Codeine", code: Code(system: "RxNorm", value: "2670")),
        Allergy(description: "Ibuprofen", code: Code(system: "RxNorm", value: "5640")),
        Allergy(description: "Allergy to peanuts", code: Code(system: "SNOMED-CT", value: "91935009")),
        Allergy(description: "Allergy to shellfish", code: Code(system: "SNOMED-CT", value: "300913006")),
        Allergy(description: "Latex allergy", code: Code(system: "SNOMED-CT", value: "300916003")),
        Allergy(description: "Allergy to bee venom", code: Code(system: "SNOMED-CT", value: "288328004")),
        Allergy(description: "Allergy to dust mite protein", code: Code(system: "SNOMED-CT", value: "232347008")),
        Allergy(description: "Allergy to cat dander", code: Code(system: "SNOMED-CT", value: "232350006")),
    ]

    /// Reactions and severities that allergies carry (SNOMED-CT).
    static let reactions: [Code] = [
        Code(system: "SNOMED-CT", value: "247472004"), // hives
        Code(system: "SNOMED-CT", value: "271807003"), // rash
        Code(system: "SNOMED-CT", value: "39579001"), // anaphylaxis
        Code(system: "SNOMED-CT", value: "56018004"), // wheezing
        Code(system: "SNOMED-CT", value: "422587007"), // nausea
    ]
    /// What a person reads for each reaction.
    static let reactionNames: [String: String] = [
        "247472004": "Hives", "271807003": "Skin rash", "39579001": "Anaphylaxis", "56018004": "Wheezing", "422587007": "Nausea",
    ]
    static let severities: [Code] = [
        Code(system: "SNOMED-CT", value: "255604002"), // mild
        Code(system: "SNOMED-CT", value: "6736007"), // moderate
        Code(system: "SNOMED-CT", value: "24484000"), // severe
    ]

    static let encounters: [Encounter] = [
        Encounter(description: "Office visit, established patient", cpt: "99213", setting: .office, weight: 40),
        Encounter(description: "Office visit, established patient, moderate complexity", cpt: "99214", setting: .office, weight: 20),
        Encounter(description: "Periodic preventive medicine visit", cpt: "99395", setting: .office, weight: 15),
        Encounter(description: "Telephone evaluation and management", cpt: "99442", setting: .office, weight: 8),
        Encounter(description: "Emergency department visit", cpt: "99284", setting: .emergency, weight: 5),
        Encounter(description: "Urgent care visit", cpt: "99203", setting: .office, weight: 8),
        Encounter(description: "Initial hospital inpatient care", cpt: "99222", setting: .inpatient, weight: 2),
        Encounter(description: "Home health visit", cpt: "99349", setting: .office, weight: 2),
    ]

    static let labTests: [LabTest] = [
        LabTest(description: "Total Cholesterol", loinc: "2093-3", units: "mg/dL", range: 140...260, decimals: 0, answers: []),
        LabTest(description: "Triglycerides", loinc: "2571-8", units: "mg/dL", range: 60...250, decimals: 0, answers: []),
        LabTest(description: "HDL Cholesterol", loinc: "2085-9", units: "mg/dL", range: 35...80, decimals: 0, answers: []),
        LabTest(description: "LDL Cholesterol", loinc: "13457-7", units: "mg/dL", range: 60...190, decimals: 0, answers: []),
        LabTest(description: "Glucose", loinc: "2345-7", units: "mg/dL", range: 70...160, decimals: 0, answers: []),
        LabTest(description: "Hemoglobin A1c", loinc: "4548-4", units: "%", range: 4.8...9.5, decimals: 1, answers: []),
        LabTest(description: "Creatinine", loinc: "2160-0", units: "mg/dL", range: 0.6...1.5, decimals: 2, answers: []),
        LabTest(description: "Urea Nitrogen", loinc: "3094-0", units: "mg/dL", range: 7...25, decimals: 0, answers: []),
        LabTest(description: "Sodium", loinc: "2951-2", units: "mmol/L", range: 134...146, decimals: 0, answers: []),
        LabTest(description: "Potassium", loinc: "2823-3", units: "mmol/L", range: 3.4...5.2, decimals: 1, answers: []),
        LabTest(description: "Chloride", loinc: "2075-0", units: "mmol/L", range: 96...108, decimals: 0, answers: []),
        LabTest(description: "Calcium", loinc: "17861-6", units: "mg/dL", range: 8.5...10.4, decimals: 1, answers: []),
        LabTest(description: "White Blood Cell Count", loinc: "6690-2", units: "10*3/uL", range: 4...11, decimals: 1, answers: []),
        LabTest(description: "Hemoglobin", loinc: "718-7", units: "g/dL", range: 11.5...17, decimals: 1, answers: []),
        LabTest(description: "Hematocrit", loinc: "4544-3", units: "%", range: 35...50, decimals: 1, answers: []),
        LabTest(description: "Platelet Count", loinc: "777-3", units: "10*3/uL", range: 150...400, decimals: 0, answers: []),
        LabTest(description: "Thyroid Stimulating Hormone", loinc: "3016-3", units: "m[IU]/L", range: 0.4...5, decimals: 2, answers: []),
        LabTest(description: "Alanine Aminotransferase", loinc: "1742-6", units: "U/L", range: 7...56, decimals: 0, answers: []),
        LabTest(description: "Aspartate Aminotransferase", loinc: "1920-8", units: "U/L", range: 10...40, decimals: 0, answers: []),
        LabTest(description: "Estimated GFR", loinc: "33914-3", units: "mL/min/{1.73_m2}", range: 45...120, decimals: 0, answers: []),
        LabTest(description: "Vitamin D 25-Hydroxy", loinc: "1989-3", units: "ng/mL", range: 12...60, decimals: 1, answers: []),
        LabTest(description: "Urine Culture", loinc: "630-4", units: nil, range: 0...0, decimals: 0, answers: ["No growth", "No growth", "Positive"]),
        LabTest(description: "Hepatitis B Surface Antigen", loinc: "5196-1", units: nil, range: 0...0, decimals: 0, answers: ["Non-reactive"]),
        LabTest(description: "Influenza A Antigen", loinc: "80382-5", units: nil, range: 0...0, decimals: 0, answers: ["Negative", "Negative", "Positive"]),
        LabTest(description: "SARS-CoV-2 RNA", loinc: "94500-6", units: nil, range: 0...0, decimals: 0, answers: ["Not detected", "Not detected", "Detected"]),
    ]

    /// The vital signs of one check, in the order a nurse takes them. Blood pressure descriptions are
    /// the ones the timeline groups on ("Systolic …", "Diastolic …").
    static let systolic = Vital(description: "Systolic Blood Pressure", loinc: "8480-6", units: "mm[Hg]", decimals: 0)
    static let diastolic = Vital(description: "Diastolic Blood Pressure", loinc: "8462-4", units: "mm[Hg]", decimals: 0)
    static let heartRate = Vital(description: "Heart Rate", loinc: "8867-4", units: "/min", decimals: 0)
    static let weight = Vital(description: "Body Weight", loinc: "29463-7", units: "kg", decimals: 1)
    static let temperature = Vital(description: "Body Temperature", loinc: "8310-5", units: "Cel", decimals: 1)
    static let respiratoryRate = Vital(description: "Respiratory Rate", loinc: "9279-1", units: "/min", decimals: 0)
    static let oxygenSaturation = Vital(description: "Oxygen Saturation", loinc: "59408-5", units: "%", decimals: 0)
    static let height = Vital(description: "Body Height", loinc: "8302-2", units: "cm", decimals: 1)
    static let bodyMassIndex = Vital(description: "BMI", loinc: "39156-5", units: "kg/m2", decimals: 1)

    static let maleFirstNames = [
        "James", "Robert", "John", "Michael", "David", "William", "Richard", "Joseph", "Thomas", "Charles",
        "Daniel", "Matthew", "Anthony", "Mark", "Steven", "Paul", "Andrew", "Joshua", "Kenneth", "Kevin",
        "Brian", "George", "Timothy", "Ronald", "Jason", "Edward", "Jeffrey", "Ryan", "Jacob", "Gary",
        "Nicholas", "Eric", "Jonathan", "Stephen", "Larry", "Justin", "Scott", "Brandon", "Benjamin", "Samuel",
        "Liam", "Noah", "Oliver", "Elijah", "Lucas", "Mateo", "Ethan", "Henry", "Owen", "Leo",
    ]

    static let femaleFirstNames = [
        "Mary", "Patricia", "Jennifer", "Linda", "Elizabeth", "Barbara", "Susan", "Jessica", "Sarah", "Karen",
        "Lisa", "Nancy", "Betty", "Margaret", "Sandra", "Ashley", "Kimberly", "Emily", "Donna", "Michelle",
        "Carol", "Amanda", "Dorothy", "Melissa", "Deborah", "Stephanie", "Rebecca", "Sharon", "Laura", "Cynthia",
        "Rosa", "Maria", "Olivia", "Emma", "Charlotte", "Amelia", "Sophia", "Isabella", "Mia", "Evelyn",
        "Harper", "Luna", "Camila", "Gianna", "Abigail", "Ella", "Avery", "Nora", "Hazel", "Aurora",
    ]

    static let lastNames = [
        "Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez",
        "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin",
        "Lee", "Perez", "Thompson", "White", "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson",
        "Walker", "Young", "Allen", "King", "Wright", "Scott", "Torres", "Nguyen", "Hill", "Flores",
        "Green", "Adams", "Nelson", "Baker", "Hall", "Rivera", "Campbell", "Mitchell", "Carter", "Roberts",
    ]

    /// CDC race and ethnicity codes (CDC-RE code set).
    static let races = ["2106-3", "2054-5", "2028-9", "1002-5", "2076-8", "2131-1"]
    static let ethnicities = ["2186-5", "2135-2"]

    static let streets = ["Main Street", "Oak Avenue", "Park Street", "Maple Drive", "Cedar Lane", "Elm Street", "Washington Avenue", "Lake Road"]
    static let cities: [(city: String, state: String, zip: String)] = [
        ("Burlington", "VT", "05401"), ("Worcester", "MA", "01608"), ("Bedford", "MA", "01730"),
        ("Portland", "ME", "04101"), ("Nashua", "NH", "03060"), ("Providence", "RI", "02903"),
        ("Hartford", "CT", "06103"), ("Albany", "NY", "12207"),
    ]
}
