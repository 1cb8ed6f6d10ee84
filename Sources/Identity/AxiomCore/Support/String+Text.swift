extension String {
    /// The text without leading and trailing white space (Unicode's, not only ASCII's).
    package func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return String(scalars[first...last])
    }

    /// Whether a text shows nothing: empty, or only white space. Stops at the first visible character and
    /// allocates nothing.
    package var isBlankText: Bool { unicodeScalars.allSatisfy(\.properties.isWhitespace) }
}
