package io.jtrace.api.spi;

import io.jtrace.api.Category;

/**
 * What the tracing agent plugs into {@link io.jtrace.api.TrackEvent}. Not for applications. Timestamps
 * are {@code System.nanoTime()} (CLOCK_MONOTONIC).
 */
public interface TrackEventBackend {
    void begin(Category category, String name, long timestamp);

    void end(Category category, long timestamp);

    void instant(Category category, String name, long timestamp);

    void counter(Category category, String name, long value, long timestamp);

    void counter(Category category, String name, double value, long timestamp);

    /**
     * An event built with {@code TrackEvent.event(...)}: {@code type} is one of {@link EventData}'s
     * TYPE_ constants, {@code name} is null for an end. {@code data} is valid during the call only.
     */
    void event(int type, Category category, String name, long timestamp, EventData data);
}
