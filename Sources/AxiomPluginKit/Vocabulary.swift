@_exported import AxiomCatalog
