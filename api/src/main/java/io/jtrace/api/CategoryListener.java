package io.jtrace.api;

/** Told about categories created while an agent is attached, so it can enable them for a running session. */
interface CategoryListener {
    void categoryCreated(Category category);
}
