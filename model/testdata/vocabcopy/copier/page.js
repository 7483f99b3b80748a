// A page's script that copies the name of a property.
function isLive(p) {
  return p.name === 'Liveness' || p.doc === 'Liveness holds here';
}
