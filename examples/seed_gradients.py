"""A TF1 physics-informed network: u(x) and its derivatives, computed in the graph.

The story behind tf2migrate: the gradient is taken inside the graph with tf.gradients,
weighted with grad_ys, and fetched with sess.run. Run `tf2migrate --diff` on this file to
see the eager TF2 version: GradientTape blocks instead of tf.gradients, function
arguments instead of placeholders, plain calls instead of sess.run.
"""
import numpy as np
import tensorflow as tf

layers = [1, 20, 20, 1]


def xavier_init(size):
    stddev = np.sqrt(2.0 / (size[0] + size[1]))
    return tf.Variable(tf.truncated_normal(size, stddev=stddev), dtype=tf.float32)


def neural_net(X, weights, biases):
    H = X
    for W, b in zip(weights[:-1], biases[:-1]):
        H = tf.tanh(tf.add(tf.matmul(H, W), b))
    return tf.add(tf.matmul(H, weights[-1]), biases[-1])


weights = [xavier_init([layers[l], layers[l + 1]]) for l in range(len(layers) - 1)]
biases = [tf.Variable(tf.zeros([1, layers[l + 1]])) for l in range(len(layers) - 1)]

x = tf.placeholder(tf.float32, shape=[None, 1])
u = neural_net(x, weights, biases)
# du/dx, with an explicit all-ones weighting of the output (grad_ys)
u_x = tf.gradients(u, x, grad_ys=tf.ones_like(u))[0]
u_xx = tf.gradients(u_x, x)[0]

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    x_star = np.linspace(-1.0, 1.0, 7)[:, None]
    u_star, u_x_star = sess.run([u, u_x], feed_dict={x: x_star})
    u_xx_star = sess.run(u_xx, {x: x_star})

print("u   ", u_star[:, 0])
print("u_x ", u_x_star[:, 0])
print("u_xx", u_xx_star[:, 0])
