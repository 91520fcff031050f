import HealthRecord
import Store

/// The `key` query parameter of `POST /timeline.json`: the original's names and the new lower-case ones.
public enum PostKey {
    public static func kind(_ key: String?) -> TimelinePost.Kind? {
        switch key {
        case "Levels", "levels": return .levels
        case "NewMedication", "medication": return .medication
        case "MedRegiment", "regimen": return .regimen
        default: return nil
        }
    }
}
