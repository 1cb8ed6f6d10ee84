// The catalog model (codes, categories, severities, dispositions, retry policies, presentations, code
// definitions) is the core's vocabulary: whoever imports the core has it.
@_exported import AxiomCatalog
