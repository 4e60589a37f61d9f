"""The source notes' claims decided from a sweep's report rows: each half's reading and word, the controls, the
comparison against published findings, and the pilots' budgets."""
