import AxiomCrash
import Testing
