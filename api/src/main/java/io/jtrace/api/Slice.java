package io.jtrace.api;

/**
 * A slice opened by {@link TrackEvent#slice}; closing it ends the slice. Never allocated per call:
 * disabled categories get a shared no-op, enabled ones their category's closer, which ends the innermost
 * open slice on the calling thread's track (whatever its category) in the sessions recording the category.
 */
public interface Slice extends AutoCloseable {
    @Override
    void close();
}
