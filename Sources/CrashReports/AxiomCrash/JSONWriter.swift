/// Writes JSON text in the order fields are given (the Swift backtracer's order), which
/// an encoder over a dictionary would not keep.
struct JSONWriter {
    private(set) var output = ""
    private var needsComma = false

    mutating func beginObject() { open("{") }
    mutating func endObject() { close("}") }
    mutating func beginArray() { open("[") }
    mutating func endArray() { close("]") }

    private mutating func open(_ bracket: String) {
        // An element of an array needs a separator; after a key, needsComma is false.
        if needsComma { output += ", " }
        output += bracket
        needsComma = false
    }

    private mutating func close(_ bracket: String) {
        output += bracket
        needsComma = true
    }

    mutating func key(_ name: String) {
        if needsComma { output += ", " }
        output += Self.quoted(name) + ": "
        needsComma = false
    }

    mutating func field(_ name: String, _ value: String) {
        key(name)
        output += Self.quoted(value)
        needsComma = true
    }

    mutating func field(_ name: String, _ value: Int) {
        key(name)
        output += String(value)
        needsComma = true
    }

    /// A value already written as JSON (a number with a fraction), after ``key(_:)``.
    mutating func raw(_ json: String) {
        output += json
        needsComma = true
    }

    mutating func field(_ name: String, _ value: Bool) {
        key(name)
        output += value ? "true" : "false"
        needsComma = true
    }

    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let digits = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
