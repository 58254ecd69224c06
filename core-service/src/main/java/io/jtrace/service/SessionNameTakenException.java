package io.jtrace.service;

/** A config's unique_session_name is already used by a running session. */
public final class SessionNameTakenException extends RuntimeException {
    public SessionNameTakenException(String message) {
        super(message);
    }
}
