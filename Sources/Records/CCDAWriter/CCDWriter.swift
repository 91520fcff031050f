import HealthRecord

public enum CCDWriter {
    public static func write(_ record: SharedRecord, options: SharingOptions) -> [UInt8] { [] }
}
