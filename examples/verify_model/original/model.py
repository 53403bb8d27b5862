"""A small regression network u(x, t) and its input gradient (TensorFlow 1)."""

import numpy as np
import tensorflow as tf

from plotting import plot_solution
from utilities import initialize_nn, neural_net


class Model:
    def __init__(self, X, u, layers, learning_rate=1e-3):
        self.X, self.u = X, u
        self.weights, self.biases = initialize_nn(layers)

        self.x_tf = tf.placeholder(tf.float32, shape=[None, X.shape[1]])
        self.u_tf = tf.placeholder(tf.float32, shape=[None, 1])
        self.u_pred = neural_net(self.x_tf, self.weights, self.biases)
        self.u_x_pred = tf.gradients(self.u_pred, self.x_tf)[0]
        self.loss = tf.reduce_mean(tf.square(self.u_tf - self.u_pred))

        self.optimizer = tf.train.AdamOptimizer(learning_rate)
        self.train_op = self.optimizer.minimize(self.loss)

        self.sess = tf.Session()
        self.sess.run(tf.global_variables_initializer())

    def train(self, n_iter):
        tf_dict = {self.x_tf: self.X, self.u_tf: self.u}
        losses = []
        for _ in range(n_iter):
            self.sess.run(self.train_op, tf_dict)
            losses.append(self.sess.run(self.loss, tf_dict))
        return np.array(losses)

    def predict(self, X_star):
        return self.sess.run([self.u_pred, self.u_x_pred], {self.x_tf: X_star})


if __name__ == "__main__":
    data = np.load("../data/samples.npz")  # not shipped: the driver never runs this block
    model = Model(data["X"], data["u"], [2, 20, 20, 1])
    model.train(10000)
    u_pred, _ = model.predict(data["X_star"])
    plot_solution(data["X_star"], u_pred, "solution.png")
