/**
 * An example web application around the Bayeux servlet: how an application configures the engine the servlet
 * publishes (here, an echo service), deployed by the module's tests into embedded Jetty and Tomcat.
 */
package org.bayeux.example;
