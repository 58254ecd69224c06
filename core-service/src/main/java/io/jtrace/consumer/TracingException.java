package io.jtrace.consumer;

/** The service refused a request or failed it, or the connection to it was lost; the message says which. */
public final class TracingException extends RuntimeException {
    public TracingException(String message) {
        super(message);
    }
}
