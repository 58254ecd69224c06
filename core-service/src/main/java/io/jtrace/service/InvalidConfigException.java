package io.jtrace.service;

/** A trace config the service cannot run; the message says which field and why. */
public final class InvalidConfigException extends RuntimeException {
    public InvalidConfigException(String message) {
        super(message);
    }
}
