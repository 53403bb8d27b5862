"""A small regression network u(x, t) and its input gradient (TensorFlow 2)."""

import numpy as np
import tensorflow as tf

from plotting import plot_solution
from utilities import initialize_nn, neural_net


class Model:
    def __init__(self, X, u, layers, learning_rate=1e-3):
        self.X, self.u = X, u
        self.weights, self.biases = initialize_nn(layers)
        self.optimizer = tf.keras.optimizers.Adam(learning_rate, epsilon=1e-08)

    @tf.function
    def compute_loss(self, x_tf, u_tf):
        x_tf = tf.cast(x_tf, tf.float32)
        u_tf = tf.cast(u_tf, tf.float32)
        u_pred = neural_net(x_tf, self.weights, self.biases)
        return tf.reduce_mean(tf.square(u_tf - u_pred))

    @tf.function
    def train_step(self, x_tf, u_tf):
        with tf.GradientTape() as tape:
            loss = self.compute_loss(x_tf, u_tf)
        variables = self.weights + self.biases
        gradients = tape.gradient(loss, variables)
        self.optimizer.apply_gradients(zip(gradients, variables))

    @tf.function
    def compute_u_and_u_x(self, x_tf):
        x_tf = tf.cast(x_tf, tf.float32)
        with tf.GradientTape() as tape:
            tape.watch(x_tf)
            u_pred = neural_net(x_tf, self.weights, self.biases)
        u_x_pred = tape.gradient(u_pred, x_tf)
        return u_pred, u_x_pred

    def train(self, n_iter):
        losses = []
        for _ in range(n_iter):
            self.train_step(self.X, self.u)
            losses.append(self.compute_loss(self.X, self.u).numpy())
        return np.array(losses)

    def predict(self, X_star):
        return [value if value is None else value.numpy() for value in self.compute_u_and_u_x(X_star)]


if __name__ == "__main__":
    data = np.load("../data/samples.npz")  # not shipped: the driver never runs this block
    model = Model(data["X"], data["u"], [2, 20, 20, 1])
    model.train(10000)
    u_pred, _ = model.predict(data["X_star"])
    plot_solution(data["X_star"], u_pred, "solution.png")
