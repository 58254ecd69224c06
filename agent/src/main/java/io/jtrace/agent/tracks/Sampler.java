package io.jtrace.agent.tracks;

/** What a polling data source does each period, on the sampler thread, into its {@link PolledSequence}. */
public interface Sampler {
    void sample(long now);

    /** The sample at start; by default like the others. */
    default void first(long now) {
        sample(now);
    }

    /** The sample at stop, the last one; by default like the others. */
    default void last(long now) {
        sample(now);
    }
}
