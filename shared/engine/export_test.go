package engine

// ExactLatencies exports exactLatencies to the external tests.
const ExactLatencies = exactLatencies
