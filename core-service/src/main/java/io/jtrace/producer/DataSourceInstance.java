package io.jtrace.producer;

/**
 * One data source running for one session. All methods are called on the producer thread, in the
 * order start → (flush)* → stop.
 */
public interface DataSourceInstance {
    void start();

    /** Hand every chunk this instance can reach to the commit thread (writers of other threads are scraped). */
    void flush();

    /** Stop producing data; flush what is written. No packet may be written after this returns. */
    void stop();

    /**
     * Interned data and descriptors written so far may be gone (a ring buffer overwrote them): write
     * them again before they are next referred to. Sources without incremental state ignore this.
     */
    default void clearIncrementalState() {}
}
