/// How serious an error is. Maps onto swift-log levels.
public enum ErrorSeverity: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    case debug, info, notice, warning, error, critical

    private var rank: Int {
        switch self {
        case .debug: 0
        case .info: 1
        case .notice: 2
        case .warning: 3
        case .error: 4
        case .critical: 5
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
}
