package io.jtrace.agent.tracks;

import java.lang.management.ManagementFactory;
import java.util.concurrent.CompletableFuture;
import javax.management.MBeanServer;
import org.slf4j.LoggerFactory;

/**
 * The platform MBean server, for samplers that must not wait for it: the JVM's first
 * {@code getPlatformMBeanServer()} starts every platform MBean (hundreds of ms on a busy machine), and a
 * sampler that waited for it on the shared sampler thread would leave every source unsampled that long.
 * The first request starts it on a daemon thread of its own; until it is up, {@link #ifReady} says so and
 * the sampler does without it this period.
 */
public final class PlatformMBeans {
    private static final CompletableFuture<MBeanServer> SERVER = new CompletableFuture<>();
    private static boolean requested;

    private PlatformMBeans() {}

    /** The platform MBean server if it is up, else null (and its start is under way). */
    public static MBeanServer ifReady() {
        synchronized (SERVER) {
            if (!requested) {
                requested = true;
                Thread starter = new Thread(PlatformMBeans::start, "jtrace-mbean-server");
                starter.setDaemon(true);
                starter.start();
            }
        }
        return SERVER.getNow(null);
    }

    private static void start() {
        try {
            SERVER.complete(ManagementFactory.getPlatformMBeanServer());
        } catch (RuntimeException | Error e) {
            // Then it never will be: the sources that need it (jvm.jmx, jvm.threads' dumps) do without.
            LoggerFactory.getLogger(PlatformMBeans.class).warn(
                    "jtrace: the platform MBean server did not start; jvm.jmx records nothing and jvm.threads places"
                            + " threads by name only", e);
            SERVER.completeExceptionally(e);
        }
    }
}
