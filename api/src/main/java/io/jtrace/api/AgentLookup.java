package io.jtrace.api;

/**
 * How a copy of the API finds a jtrace agent running in this JVM, whichever class loader loaded the copy.
 *
 * <p>An agent's jar is on the system class path ({@code -javaagent} and a later attach both put it
 * there), and an application whose class loader looks there first shares the agent's own copy of the
 * API. A class loader that looks in its own jars first (a servlet container's web application, for
 * one) loads a copy of its own, which the agent cannot see. So each copy announces itself, once, to
 * the agent's binder on the system class path, which plugs the agent into that copy; without an agent
 * the binder is not found and the copy stays a no-op.
 */
final class AgentLookup {
    /** The agent's binder: {@code public static void bind(Class<?> trackEventClass)}. */
    static final String BINDER = "io.jtrace.agent.apibind.ApiCopies";

    private AgentLookup() {}

    static void announce(Class<?> trackEventClass) {
        try {
            Class<?> binder = Class.forName(BINDER, true, ClassLoader.getSystemClassLoader());
            binder.getMethod("bind", Class.class).invoke(null, trackEventClass);
        } catch (ClassNotFoundException e) {
            // No agent in this JVM (yet: one attached later finds this copy among the loaded classes).
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            // An agent that cannot bind this copy: the copy stays a no-op; the application runs on.
        }
    }
}
