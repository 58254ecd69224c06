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
}
