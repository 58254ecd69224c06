/**
 * Binding the agent to every copy of the application API ({@code io.jtrace.api}) in the JVM, not only
 * the one on the system class path: a class loader that loads its own jars first (a servlet
 * container's web application, a plugin loader) or a copy loaded before the agent attached.
 *
 * <p>{@link io.jtrace.agent.apibind.ApiCopies} hears of each copy; for each it defines
 * {@link io.jtrace.agent.apibind.ForeignApiAdapter} again in an
 * {@link io.jtrace.agent.apibind.AdapterLoader}, where {@code io.jtrace.api} names that copy's classes,
 * so the adapter implements that copy's backend interface. The adapter reaches the agent only through
 * {@link io.jtrace.agent.apibind.Twins}, whose methods name no API class: each of the copy's categories
 * and async tracks has a twin in the agent's own copy, and its events are the twin's events.
 */
package io.jtrace.agent.apibind;
