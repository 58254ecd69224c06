package io.jtrace.service;

/** A request refused because it would exceed a limit of the service (sessions, memory). */
public final class ServiceLimitException extends RuntimeException {
    public ServiceLimitException(String message) {
        super(message);
    }
}
