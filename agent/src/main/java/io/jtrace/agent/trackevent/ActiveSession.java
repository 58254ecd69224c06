package io.jtrace.agent.trackevent;

import io.jtrace.producer.DataSourceContext;

/** The track_event instance currently running: where writers come from and which categories are on. */
final class ActiveSession {
    private final DataSourceContext context;
    private final CategoryFilter filter;
    /**
     * Bumped (by the producer thread) when the service asks to clear incremental state; every
     * application thread compares it with its own on its next event (a volatile read) and then starts
     * its sequence's incremental state over.
     */
    private volatile int generation;

    ActiveSession(DataSourceContext context, CategoryFilter filter) {
        this.context = context;
        this.filter = filter;
    }

    DataSourceContext context() {
        return context;
    }

    CategoryFilter filter() {
        return filter;
    }

    int generation() {
        return generation;
    }

    /** Only the producer thread calls this, so the non-atomic increment is safe. */
    @SuppressWarnings("NonAtomicOperationOnVolatileField")
    void clearIncrementalState() {
        generation++;
    }
}
