package io.jtrace.service;

/** Callbacks to a consumer, from the service thread. */
public interface Consumer {
    /** The consumer's session has stopped (duration elapsed, disable requested, or failure when {@code error} != null). */
    void onTracingDisabled(String error);
}
