package io.jtrace.service;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Closes what a test opened (services, producer clients...), last opened first, after each test:
 * {@code @RegisterExtension final Closer closer = new Closer();} then {@code closer.add(resource)}.
 * Every resource is closed even if one fails; the first failure (the others suppressed in it) fails the test.
 */
final class Closer implements AfterEachCallback {
    private final List<AutoCloseable> toClose = new ArrayList<>();

    /** Registers {@code resource} to be closed after the test and returns it. */
    <T extends AutoCloseable> T add(T resource) {
        toClose.add(resource);
        return resource;
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        Exception failure = null;
        for (int i = toClose.size() - 1; i >= 0; i--) {
            try {
                toClose.get(i).close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        toClose.clear();
        if (failure != null) {
            throw failure;
        }
    }
}
