import AxiomCatalog

extension ErrorRegistry {
    /// The known codes closest to an unknown domain and code, nearest first: for "did you mean" messages.
    ///
    /// Codes of the same domain come first when the domain is known; otherwise the closest domains' codes.
    package func suggestions(domain: String, code: String, limit: Int = 3) -> [ErrorCode] {
        let all = descriptors.map(\.code)
        let sameDomain = all.filter { $0.domain == domain }
        let pool = sameDomain.isEmpty ? all : sameDomain
        let target = sameDomain.isEmpty ? "\(domain)/\(code)".lowercased() : code.lowercased()
        return
            pool
            .map { candidate in
                let text = sameDomain.isEmpty ? candidate.description.lowercased() : candidate.code.lowercased()
                return (candidate, editDistance(target, text))
            }
            .sorted { ($0.1, $0.0.description) < ($1.1, $1.0.description) }
            .prefix(limit)
            .map(\.0)
    }
}

/// Levenshtein distance over Unicode scalars.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a.unicodeScalars)
    let b = Array(b.unicodeScalars)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}
