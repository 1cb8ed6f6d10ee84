import Foundation

/// Holds real outputs of the `axiom` tool and the crash reporter to the JSON Schemas the project commits to
/// (`Sources/Tools/axiom/Schemas`), both ways: the output conforms to its schema (Python's `jsonschema`, the reference
/// validator), and the schema describes every key the output holds, at any depth, so that it stays complete.
///
/// Needs `python3` with `jsonschema` (Debian's `python3-jsonschema`, which the README's test command installs).
/// When either is missing the check reports that as a problem, so the test fails and says what to install: a
/// check that skips itself would let the formats drift unseen.
package enum SchemaCheck {
    /// `Sources/Tools/axiom/Schemas` of the checkout the tests were built from.
    package static let schemaDirectory: String = {
        var components = URL(fileURLWithPath: #filePath).pathComponents
        components.removeLast(3)  // Tests/AxiomSchemaCheck/SchemaCheck.swift
        return NSString.path(withComponents: components + ["Sources", "Tools", "axiom", "Schemas"])
    }()

    /// The longest a validation may take before it is given up (and reported as a problem).
    package static let timeout: Duration = .seconds(60)

    /// What is wrong with `document`, one JSON value, against the schema `name` (`crash-report` for
    /// `Sources/Tools/axiom/Schemas/crash-report.schema.json`): the schema's own faults (a field without a
    /// description), jsonschema's errors, then every key that no schema property describes, each with its JSON
    /// path (`$.threads[0].frames[2].kind`). Empty when the document conforms.
    package static func problems(in document: String, against name: String) -> [String] {
        run(document, schema: name, lines: false)
    }

    /// As ``problems(in:against:)``, for JSON Lines: each line of `lines` is one document.
    package static func problems(inLines lines: String, against name: String) -> [String] {
        run(lines, schema: name, lines: true)
    }

    private static func run(_ text: String, schema name: String, lines: Bool) -> [String] {
        let schemaPath = schemaDirectory + "/" + name + ".schema.json"
        guard FileManager.default.fileExists(atPath: schemaPath) else { return ["no schema at \(schemaPath)"] }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "axiom-schema-check-" + UUID().uuidString)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            return ["cannot create \(folder.path): \(error)"]
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let documentPath = folder.appendingPathComponent("document.json").path
        let outputPath = folder.appendingPathComponent("output.txt").path
        guard FileManager.default.createFile(atPath: documentPath, contents: Data(text.utf8)),
            FileManager.default.createFile(atPath: outputPath, contents: nil),
            let output = FileHandle(forWritingAtPath: outputPath)
        else { return ["cannot write the document to \(folder.path)"] }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, schemaPath, documentPath, lines ? "lines" : "document"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        do {
            try process.run()
        } catch {
            return ["cannot run /usr/bin/env python3: \(error)"]
        }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while process.isRunning && clock.now < deadline { usleep(10_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            try? output.close()
            return ["python3 did not validate against \(name) within \(timeout); stopped"]
        }
        process.waitUntilExit()
        try? output.close()
        let said = readText(outputPath)
        let reported = said.split(separator: "\n").map(String.init)
        switch process.terminationStatus {
        case 0 where reported.isEmpty: return []
        case 127:
            return [
                "python3 is not installed: the schema checks need python3 with python3-jsonschema (README, Quick start)"
            ]
        default:
            return reported.isEmpty ? ["python3 exited with \(process.terminationStatus) and said nothing"] : reported
        }
    }

    /// The file's text, read with `read(2)`: `String(contentsOfFile:)` of FoundationEssentials on Linux loses its
    /// read buffer (LeakSanitizer reports it under `--sanitize=address`).
    private static func readText(_ path: String) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Checks the schema, validates each document with jsonschema (the schema's own draft), then walks each
    /// document beside the schema for keys no property describes. Prints one problem a line; exits 1 when there
    /// is one, 3 when jsonschema cannot be imported.
    private static let script = #"""
        import json, sys
        try:
            import jsonschema
        except ImportError as error:
            print(f"python3 cannot import jsonschema ({error}): install python3-jsonschema (README, Quick start)")
            sys.exit(3)

        schema_path, document_path, mode = sys.argv[1:4]
        schema = json.load(open(schema_path, encoding="utf-8"))
        problems = []
        Validator = jsonschema.validators.validator_for(schema)
        try:
            Validator.check_schema(schema)
        except jsonschema.exceptions.SchemaError as error:
            print(f"{schema_path}: not a valid schema: {error.message}")
            sys.exit(1)
        validator = Validator(schema)

        def path_text(path):
            text = "$"
            for part in path:
                text += f"[{part}]" if isinstance(part, int) else f".{part}"
            return text

        def resolve(node):
            for _ in range(32):
                if not (isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#/")):
                    break
                target = schema
                for part in node["$ref"][2:].split("/"):
                    target = target[part]
                merged = dict(target)
                merged.update({key: value for key, value in node.items() if key != "$ref"})
                node = merged
            return node

        def undescribed_schema_fields(node, path):
            if isinstance(node, dict):
                for name, sub in node.get("properties", {}).items():
                    if "description" not in resolve(sub):
                        problems.append(f"schema {path}.properties.{name}: no description")
                for key, sub in node.items():
                    # Values, and conditions (what `if` and `not` test describes no field).
                    if key not in ("const", "enum", "default", "examples", "if", "not"):
                        undescribed_schema_fields(sub, f"{path}.{key}")
            elif isinstance(node, list):
                for index, sub in enumerate(node):
                    undescribed_schema_fields(sub, f"{path}[{index}]")

        def undescribed(value, node, path, prefix):
            node = resolve(node)
            if not isinstance(node, dict):
                return
            if isinstance(value, dict):
                properties = node.get("properties", {})
                extra = node.get("additionalProperties", True)
                for key, item in value.items():
                    here = path + [key]
                    if key in properties:
                        undescribed(item, properties[key], here, prefix)
                    elif isinstance(extra, dict):
                        undescribed(item, extra, here, prefix)
                    else:
                        problems.append(f"{prefix}{path_text(here)}: a key the schema does not describe")
            elif isinstance(value, list) and isinstance(node.get("items"), dict):
                for index, item in enumerate(value):
                    undescribed(item, node["items"], path + [index], prefix)

        undescribed_schema_fields(schema, "$")
        text = open(document_path, encoding="utf-8").read()
        if mode == "lines":
            lines = text.split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            documents = [(f"line {number}: ", line) for number, line in enumerate(lines, 1)]
            if not documents:
                problems.append("no line to validate")
        else:
            documents = [("", text)]
        for prefix, document in documents:
            try:
                value = json.loads(document)
            except ValueError as error:
                problems.append(f"{prefix}not JSON: {error}: {document[:200]!r}")
                continue
            errors = sorted(validator.iter_errors(value), key=lambda error: path_text(error.absolute_path))
            for error in errors[:20]:
                problems.append(f"{prefix}{path_text(error.absolute_path)}: {error.message}")
            undescribed(value, schema, [], prefix)
        for problem in problems[:40]:
            print(problem)
        sys.exit(1 if problems else 0)
        """#
}
